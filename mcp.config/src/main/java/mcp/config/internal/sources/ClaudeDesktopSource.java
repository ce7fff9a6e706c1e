package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerSpec;

/**
 * Claude Desktop's config file ({@code claude-desktop}, priority 30), read as its documentation
 * describes it (https://modelcontextprotocol.io/docs/develop/connect-local-servers): one user-level
 * {@code claude_desktop_config.json} in Claude's application folder, servers under {@code mcpServers}
 * in the {@link CommonShape}. The folder is the platform's: {@code ~/Library/Application Support/Claude}
 * on macOS, {@code %APPDATA%\Claude} on Windows, and on Linux (where Claude Desktop runs as a community
 * build) {@code $XDG_CONFIG_HOME/Claude} when that is an absolute path, else {@code ~/.config/Claude}.
 * There is no project-level file.
 *
 * <p>The file is for local servers: Claude Desktop adds remote servers as connectors in its settings,
 * not here, so an entry with a {@code url} and no {@code command} is inactive with that reason rather
 * than connected behind Claude Desktop's back. Claude Desktop expands no variables: values are taken as
 * written.
 *
 * <p>Priority 30: a user-level file of a chat application, often pointing at personal folders (Desktop,
 * Downloads); the agent CLIs (80 to 55) and the editors (50) configure servers for coding and win a
 * name they share with it; it still wins over VS Code's files (20) and a generic {@code mcp.json} (5).
 */
public final class ClaudeDesktopSource extends FileSource {

    private final Platform platform;

    /** Creates the source; ServiceLoader calls this. */
    public ClaudeDesktopSource() {
        this(Platform.current());
    }

    ClaudeDesktopSource(Platform platform) {
        super("claude-desktop", "Claude Desktop", 30);
        this.platform = platform;
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        return List.of(platform.appData(search.home(), environment)
                .resolve("Claude").resolve("claude_desktop_config.json").normalize());
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        super.collect(context, search, findings.withUnstartable(ClaudeDesktopSource::remoteOnly));
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        spec.expandVariables = false; // Claude Desktop expands no variables
    }

    private static Optional<String> remoteOnly(ServerSpec server) {
        if (server.command().isEmpty() && server.url().isPresent()) {
            return Optional.of("Claude Desktop starts only local servers (\"command\") from"
                    + " claude_desktop_config.json; it adds remote servers as connectors in its settings");
        }
        return Optional.empty();
    }
}
