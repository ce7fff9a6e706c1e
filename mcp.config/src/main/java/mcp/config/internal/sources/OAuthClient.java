package mcp.config.internal.sources;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig.AuthRef;

/**
 * A pre-registered OAuth client that a tool's entry names ({@code oauth: {clientId: ...}}), as the
 * options of an {@code oauth} {@link AuthRef} stored under the server's name, which is where
 * {@code mcp-host auth login NAME} keeps the credential. Only the settings mcp-host's OAuth client
 * knows are taken ({@code clientId}, {@code clientSecret}, {@code scope}, {@code callbackPort}).
 */
final class OAuthClient {

    private OAuthClient() {
    }

    /**
     * @param entry the server entry
     * @param key the field that holds the client, e.g. {@code oauth}
     * @param names the tool's option names to mcp-host's, e.g. {@code client_id -> clientId}
     * @return the reference, or empty when the field is absent, not an object (a problem) or names
     *     none of the options
     */
    static Optional<AuthRef> read(ServerEntry entry, String key, Map<String, String> names) {
        Optional<ServerEntry> client = entry.nested(key);
        if (client.isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> options = new LinkedHashMap<>();
        names.forEach((theirs, ours) -> text(client.get(), theirs).ifPresent(value -> options.put(ours, value)));
        return options.isEmpty() ? Optional.empty() : Optional.of(new AuthRef("oauth", entry.name(), options));
    }

    /** A string, or a number (a port) as its text. */
    private static Optional<String> text(ServerEntry client, String key) {
        if (client.node(key).filter(node -> node.isNumber()).isPresent()) {
            return client.node(key).map(node -> node.asString());
        }
        return client.string(key);
    }
}
