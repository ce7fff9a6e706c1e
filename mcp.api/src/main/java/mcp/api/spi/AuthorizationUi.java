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

    /**
     * Starts listening at the loopback redirect URI a client was registered with, for an authorization
     * server that compares redirect URIs as written (a pre-registered client of another tool, whose URI has
     * that tool's host name and path): its host ({@code 127.0.0.1}, {@code localhost} or {@code [::1]}), path
     * and port, or any free port when the URI names none (or 0). The receiver's {@link Receiver#redirectUri()}
     * is that URI with the port it listens on.
     *
     * <p>The default listens as {@link #open(String, int)} does on the URI's port and keeps its own host and
     * path: a UI that does not override it serves only authorization servers that take its own redirect URI.
     *
     * @param serverName the MCP server the authorization is for
     * @param redirectUri an {@code http} URI of a loopback host
     * @return a receiver, to be closed after use
     * @throws mcp.api.McpException when no receiver can be opened
     */
    default Receiver open(String serverName, URI redirectUri) {
        return open(serverName, Math.max(redirectUri.getPort(), 0));
    }

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
