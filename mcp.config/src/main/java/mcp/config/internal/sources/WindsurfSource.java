package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Windsurf's config files ({@code windsurf}, priority 50): {@code ~/.codeium/windsurf/mcp_config.json}
 * and {@code .windsurf/mcp_config.json} in the project, servers under {@code mcpServers} in the
 * common shape, plus Windsurf's {@code serverUrl} for the endpoint of a remote server (it wins over
 * {@code url} when both are written, since it is the key Windsurf documents). Windsurf's
 * {@code ${env:NAME}} is translated as for {@link VsCodeSource}.
 */
public final class WindsurfSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public WindsurfSource() {
        super("windsurf", "Windsurf", 50);
    }

    @Override
    List<Path> userFiles(SearchPath search, Map<String, String> environment) {
        return List.of(search.home().resolve(".codeium/windsurf/mcp_config.json"));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".windsurf/mcp_config.json");
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.editor(file.directory(), search.home());
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        entry.string("serverUrl").ifPresent(url -> spec.url = Optional.of(url));
    }
}
