package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Windsurf's config files ({@code windsurf}, priority 50), as Windsurf documents them
 * (https://docs.windsurf.com/windsurf/cascade/mcp): {@code ~/.codeium/windsurf/mcp_config.json} (the
 * editor's; {@code %USERPROFILE%\.codeium\windsurf} on Windows, which is the home), then
 * {@code ~/.codeium/mcp_config.json} (the Windsurf plugins for other IDEs,
 * https://docs.windsurf.com/plugins/cascade/mcp), and {@code .windsurf/mcp_config.json} in the project,
 * which Windsurf's documentation does not name (docs/discovery.md). Servers sit under
 * {@code mcpServers} in the common shape ({@code disabled}, {@code disabledTools} included), plus
 * Windsurf's {@code serverUrl} for the endpoint of a remote server (it wins over {@code url} when both
 * are written, since it is the key Windsurf documents). Windsurf speaks Streamable HTTP and SSE to the
 * same kind of entry and documents no key that tells them apart, so the type is left to validation
 * ({@code http}, whose transport falls back to SSE).
 *
 * <p>Windsurf interpolates {@code ${env:NAME}} (in {@code command}, {@code args}, {@code env},
 * {@code serverUrl}, {@code url} and {@code headers}), translated as for {@link VsCodeSource}, and
 * {@code ${file:/path}}, a file's content, which mcp-host does not read: such a server is reported and
 * skipped.
 */
public final class WindsurfSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public WindsurfSource() {
        super("windsurf", "Windsurf", 50);
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        return List.of(search.home().resolve(".codeium/windsurf/mcp_config.json"),
                search.home().resolve(".codeium/mcp_config.json"));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".windsurf/mcp_config.json");
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.windsurf(file.directory(), search.home());
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        entry.string("serverUrl").ifPresent(url -> spec.url = Optional.of(url));
        entry.refuseUnsupportedReferences();
    }
}
