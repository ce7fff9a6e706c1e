package mcp.config;

import java.nio.file.Path;
import mcp.api.spi.CapabilitySource;
import mcp.config.internal.sources.NativeSource;

/** Capability sources over files named by the user rather than discovered. */
public final class ConfigFiles {

    private ConfigFiles() {
    }

    /**
     * A source that reads one file in mcp-host's native format ({@code mcpServers}, the same shape as
     * Claude Desktop's), as {@code mcp-host --config FILE} does: its servers get level
     * {@link mcp.api.SourceMetadata.Level#NATIVE}, and a missing or broken file is a problem naming it.
     *
     * @param file the file
     * @return the source ({@code native}, priority 100)
     */
    public static CapabilitySource nativeFile(Path file) {
        return NativeSource.forFile(file);
    }
}
