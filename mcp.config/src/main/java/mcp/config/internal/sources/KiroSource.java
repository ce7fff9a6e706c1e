package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig.AuthRef;

/**
 * Kiro's MCP files ({@code kiro}, priority 50), as Kiro documents them
 * (https://kiro.dev/docs/mcp/configuration): {@code .kiro/settings/mcp.json} in the workspace and
 * {@code ~/.kiro/settings/mcp.json} for the user (the workspace file wins a shared name), servers
 * under {@code mcpServers} in the {@link CommonShape}: {@code command}, {@code args}, {@code env} for a
 * local server, {@code url} and {@code headers} for a remote one (Kiro picks the transport, so the
 * type is left to validation, which infers {@code http} from {@code url}), {@code disabled} and
 * {@code disabledTools}. A pre-registered OAuth client ({@code oauth.clientId}, {@code oauthScopes})
 * becomes an {@code oauth} auth reference. {@code autoApprove} (tools Kiro calls without asking) has no
 * meaning here and is ignored. Kiro expands {@code ${NAME}} from the environment, which is mcp-host's
 * own syntax: values are taken as written.
 *
 * <p>Priority 50, as for the other editors (Kiro is one, with a CLI that reads the same files): below
 * the agent CLIs, above VS Code and the user-level Claude Desktop file.
 */
public final class KiroSource extends FileSource {

    /** Creates the source; ServiceLoader calls this. */
    public KiroSource() {
        super("kiro", "Kiro", 50);
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        return List.of(search.home().resolve(".kiro/settings/mcp.json"));
    }

    @Override
    List<String> projectFiles() {
        return List.of(".kiro/settings/mcp.json");
    }

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        if (spec.auth.isPresent()) {
            return;
        }
        Optional<AuthRef> client = OAuthClient.read(entry, "oauth", Map.of("clientId", "clientId"));
        Optional<List<String>> scopes = entry.stringList("oauthScopes", false);
        if (client.isPresent() && scopes.isPresent() && !scopes.get().isEmpty()) {
            Map<String, String> options = new LinkedHashMap<>(client.get().options());
            options.put("scope", String.join(" ", scopes.get()));
            client = Optional.of(client.get().withOptions(options));
        }
        spec.auth = client;
    }
}
