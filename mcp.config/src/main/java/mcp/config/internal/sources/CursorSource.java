package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;

/**
 * Cursor's config files ({@code cursor}, priority 50): {@code ~/.cursor/mcp.json} and
 * {@code .cursor/mcp.json} in the project, servers under {@code mcpServers} in the common shape.
 * Cursor resolves VS Code's variables ({@code ${env:NAME}}, {@code ${workspaceFolder}},
 * {@code ${userHome}}); they are translated as for {@link VsCodeSource}, and {@code envFile} is read as there.
 */
public final class CursorSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public CursorSource() {
        super("cursor", "Cursor", 50);
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        return List.of(search.home().resolve(".cursor/mcp.json"));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".cursor/mcp.json");
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.editor(file.directory(), search.home());
    }

    /** The common shape, and {@code envFile} as VS Code reads it (https://cursor.com/docs/context/mcp). */
    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        EnvFile.apply(entry, spec);
    }
}
