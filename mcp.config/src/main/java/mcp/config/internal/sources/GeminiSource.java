package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Gemini CLI's settings files ({@code gemini}, priority 60): {@code ~/.gemini/settings.json} and
 * {@code .gemini/settings.json} in the project, servers under {@code mcpServers}.
 *
 * <p>Gemini's entry is the common shape with its own names for the remote endpoint and the tool
 * filters: {@code httpUrl} is a Streamable HTTP endpoint (type {@code http}) and wins over
 * {@code url}, which in Gemini is an SSE endpoint (type {@code sse}); a {@code type} written in the
 * entry is kept as written. {@code includeTools} and {@code excludeTools} are the tool allow- and
 * deny-lists. {@code trust} (skip confirmations) has no meaning here and is ignored. Gemini expands
 * {@code $NAME} as well as {@code ${NAME}}, so the bare form is translated (see {@link Variables#gemini()}).
 * What the user decided (folder trust, {@code mcp.allowed}, {@code mcp.excluded}) makes servers inactive,
 * see {@link #collect}.
 */
public final class GeminiSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public GeminiSource() {
        super("gemini", "Gemini CLI", 60);
    }

    @Override
    List<Path> userFiles(SearchPath search, Map<String, String> environment) {
        return List.of(search.home().resolve(".gemini/settings.json"));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".gemini/settings.json");
    }

    /**
     * As Gemini CLI 0.61.0 does ({@code gemini mcp list}, docs/discovery.md): in a folder the user has not
     * trusted, every server is disabled, the user's too, unless the user turned folder trust off
     * ({@code security.folderTrust.enabled: false}); {@code mcp.allowed} and {@code mcp.excluded} of the
     * user's settings block the servers they leave out or name.
     */
    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        ConfigFile user = userFile(search.home().resolve(".gemini/settings.json"), search);
        Optional<ObjectNode> userRoot = readRoot(user, findings);
        GeminiConsent consent = GeminiConsent.read(userRoot, user.path(), search, findings);
        Findings gated = findings.withConsent(consent::decide);
        for (ConfigFile file : projectConfigFiles(search, List.of(user.path()))) {
            readFile(file, search, gated);
        }
        userRoot.ifPresent(root -> guarded(user, "", findings,
                () -> readServers(user, root, "", "mcpServers", search, gated)));
    }

    @Override
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.gemini();
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        Optional<String> httpUrl = entry.string("httpUrl");
        if (httpUrl.isPresent()) {
            spec.url = httpUrl;
            spec.type = spec.type.or(() -> Optional.of("http"));
        } else if (spec.url.isPresent()) {
            spec.type = spec.type.or(() -> Optional.of("sse"));
        }
        entry.stringList("includeTools", false).ifPresent(tools -> spec.enabledTools = Optional.of(tools));
        entry.stringList("excludeTools", false).ifPresent(tools -> spec.disabledTools = tools);
    }
}
