package mcp.api.spi;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * Lets the user authorize a client in the browser: the OAuth authorization code flow's front
 * channel. The flow asks for a {@link Receiver}, registers its {@link Receiver#redirectUri()}, and
 * hands it the authorization URL; the receiver shows the URL to the user (or follows it itself) and
 * returns the parameters of the redirect that comes back.
 *
 * <p>Built in: {@code browser} (opens the system browser, or prints the URL when there is none, and
 * receives the redirect on 127.0.0.1 at a random port) and {@code headless} (follows an immediate
 * redirect itself, for authorization servers that redirect at once, such as test servers).
 */
public interface AuthorizationUi {

    /** @return a stable id, e.g. {@code browser} */
    String id();

    /**
     * Starts listening for a redirect.
     *
     * @param serverName the MCP server the authorization is for, for what the user sees
     * @param preferredPort the loopback port to listen on when free (the one a client was registered
     *     with), or 0 for any
     * @return a receiver, to be closed after use
     * @throws mcp.api.McpException when no receiver can be opened
     */
    Receiver open(String serverName, int preferredPort);

    /** One authorization in progress. */
    interface Receiver extends AutoCloseable {

        /** @return where the authorization server must send the user back */
        URI redirectUri();

        /**
         * Shows the authorization URL (or follows it) and waits for the redirect.
         *
         * @param authorizationUrl the authorization request
         * @param timeout how long to wait for the user
         * @return the redirect's query parameters ({@code code}, {@code state}, or {@code error} ...)
         * @throws mcp.api.McpException when nothing came back in time or the receiver failed
         */
        Map<String, String> await(URI authorizationUrl, Duration timeout);

        /** Stops listening. */
        @Override
        void close();
    }
}
