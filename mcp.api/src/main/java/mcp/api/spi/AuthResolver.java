package mcp.api.spi;

import java.util.Map;
import java.util.Optional;
import mcp.api.ServerConfig;

/**
 * Turns the secret references of a config into concrete values just before connect: env values of
 * a stdio server, header values of an HTTP server. The host calls every resolver in turn on a copy;
 * the connection keeps the unresolved config, so cache keys never depend on secrets.
 *
 * <p>A resolver never logs a resolved value and never puts one in an exception message.
 */
public interface AuthResolver {

    /** @return a stable id, e.g. {@code values} */
    String id();

    /**
     * @param serverName the server's name
     * @param config the config as resolved so far
     * @param context what the resolver may consult
     * @return the config with this resolver's references resolved, or {@code config} itself when it
     *     has nothing to do
     */
    ServerConfig resolve(String serverName, ServerConfig config, Context context);

    /** What a resolver may consult. */
    interface Context {
        /** @return the host's environment variables */
        Map<String, String> environment();

        /** @return where stored credentials are kept, when the host has a store */
        default Optional<AuthStorage> authStorage() {
            return Optional.empty();
        }
    }
}
