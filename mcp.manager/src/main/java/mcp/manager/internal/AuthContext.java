package mcp.manager.internal;

import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.internal.Secrets;

/**
 * The fingerprint of the authorization context a server is reached in, which a tool list the server
 * marked {@code cacheScope: "private"} (2026-07-28) is bound to: reused as current only when the next
 * connect has the same fingerprint.
 *
 * <p>It is the SHA-256 of the <em>resolved</em> config (the header and environment values as sent) and,
 * for a stdio server, of the credential-looking variables it inherits from the host (the names
 * {@link Secrets#isSecretName} marks, as everywhere mcp-host hides values): another API key, another
 * account. Only the hash is kept, never a
 * value. A server that may authenticate with OAuth (an HTTP server whose credentials come from the
 * authorization flow, not from its config) has no identity known before it is reached: its fingerprint is
 * random, so a private list of it is never reused, and only a {@code public} one is.
 */
public final class AuthContext {

    private AuthContext() {
    }

    /**
     * @param resolved the config with its values resolved, as the transport gets it
     * @param hostEnvironment the environment a stdio child inherits from
     * @param oauthPossible whether the transport may add credentials of its own (an OAuth flow)
     * @return the fingerprint, 64 hex digits
     */
    public static String of(ServerConfig resolved, Map<String, String> hostEnvironment, boolean oauthPossible) {
        if (oauthPossible && resolved instanceof HttpServerConfig http
                && http.headers().keySet().stream().noneMatch(h -> h.equalsIgnoreCase("Authorization"))) {
            return Sha256.hex("oauth " + UUID.randomUUID());
        }
        Map<String, Object> json = new TreeMap<>();
        json.put("config", ConfigHash.canonicalJson(resolved));
        if (resolved instanceof StdioServerConfig stdio) {
            Map<String, String> inherited = new TreeMap<>();
            hostEnvironment.forEach((name, value) -> {
                boolean passed = stdio.inheritedEnv().map(names -> names.contains(name)).orElse(true);
                if (passed && Secrets.isSecretName(name)) {
                    inherited.put(name, value);
                }
            });
            json.put("inherited", inherited);
        }
        return Sha256.hex("mcp-host authorization context\u0000" + McpJson.mapper().writeValueAsString(json));
    }
}
