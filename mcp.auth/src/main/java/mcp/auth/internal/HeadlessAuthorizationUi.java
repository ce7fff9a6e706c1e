package mcp.auth.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.McpException;
import mcp.api.McpTimeoutException;
import mcp.api.spi.AuthorizationUi;

/**
 * The {@code headless} authorization UI, for authorization servers that redirect at once (test
 * servers, the conformance suite, servers that authorize a known client without asking anyone): it
 * GETs the authorization URL itself, follows at most {@value #MAX_REDIRECTS} redirects, and takes the
 * parameters straight from the {@code Location} that points at the redirect URI, without calling it.
 *
 * <p>A loopback receiver still listens at the redirect URI, so the URI is a real one, on the preferred
 * port when free. An answer that is not a redirect (a login page, an error) fails with its status and
 * the first bytes of its body; the whole exchange is bounded by the wait's timeout. Cookies are kept
 * for the one authorization, as a browser would.
 */
public final class HeadlessAuthorizationUi implements AuthorizationUi {

    /** The id of this UI. */
    public static final String ID = "headless";

    /** How many redirects are followed before one leads to the redirect URI. */
    static final int MAX_REDIRECTS = 5;

    /** How much of a body an error shows. */
    static final int BODY_PREVIEW_BYTES = 200;

    /** A public no-arg constructor, for ServiceLoader. */
    public HeadlessAuthorizationUi() {
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Receiver open(String serverName, int preferredPort) {
        return new HeadlessReceiver(serverName, new LoopbackReceiver(serverName, preferredPort, url -> { }));
    }

    @Override
    public Receiver open(String serverName, URI redirectUri) {
        return new HeadlessReceiver(serverName, new LoopbackReceiver(serverName, redirectUri, url -> { }));
    }

    /** Follows the authorization URL; owns the loopback receiver it was given. */
    private static final class HeadlessReceiver implements Receiver {

        private final String serverName;
        private final LoopbackReceiver loopback;

        HeadlessReceiver(String serverName, LoopbackReceiver loopback) {
            this.serverName = serverName;
            this.loopback = loopback;
        }

        @Override
        public URI redirectUri() {
            return loopback.redirectUri();
        }

        @Override
        public Map<String, String> await(URI authorizationUrl, Duration timeout) {
            Objects.requireNonNull(authorizationUrl, "authorizationUrl");
            Objects.requireNonNull(timeout, "timeout");
            long deadline = System.nanoTime() + timeout.toNanos();
            AtomicInteger threads = new AtomicInteger();
            ExecutorService executor = Executors.newCachedThreadPool(runnable -> {
                Thread thread = new Thread(runnable, "mcp-http-" + serverName + "-authorize-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
            try {
                HttpClient client = HttpClient.newBuilder()
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .cookieHandler(new CookieManager())
                        .connectTimeout(positive(timeout))
                        .executor(executor)
                        .build();
                URI current = authorizationUrl;
                for (int redirects = 0; ; redirects++) {
                    URI location = get(client, current, remaining(deadline, timeout));
                    if (isRedirectUri(location)) {
                        return LoopbackReceiver.queryParameters(location.getRawQuery());
                    }
                    if (redirects == MAX_REDIRECTS) {
                        throw new McpException("The authorization of MCP server \"" + serverName + "\" was redirected "
                                + "more than " + MAX_REDIRECTS + " times without coming back to " + redirectUri()
                                + " (last: " + describe(location) + "); log in with a browser instead");
                    }
                    current = location;
                }
            } finally {
                executor.shutdownNow();
            }
        }

        /** @return the resolved {@code Location} of a redirect; anything else throws */
        private URI get(HttpClient client, URI url, Duration timeout) {
            HttpRequest request = HttpRequest.newBuilder(url)
                    .GET()
                    .timeout(timeout)
                    .header("User-Agent", "mcp-host/" + OAuthClient.VERSION)
                    .build();
            HttpResponse<InputStream> response;
            try {
                response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            } catch (java.net.http.HttpTimeoutException e) {
                throw new McpTimeoutException("The authorization endpoint " + describe(url) + " of MCP server \""
                        + serverName + "\" did not answer in time", timeout);
            } catch (IOException e) {
                throw new McpException("GET " + describe(url) + " (authorization of MCP server \"" + serverName
                        + "\") failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new McpException("Interrupted while authorizing MCP server \"" + serverName + "\"", e);
            }
            int status = response.statusCode();
            Optional<String> location = response.headers().firstValue("Location");
            if (isRedirect(status) && location.isPresent()) {
                discard(response.body());
                try {
                    return url.resolve(location.get().strip());
                } catch (IllegalArgumentException e) {
                    throw new McpException("The authorization endpoint " + describe(url) + " of MCP server \""
                            + serverName + "\" redirected to an invalid URL", e);
                }
            }
            String body = preview(response.body());
            throw new McpException("The authorization endpoint " + describe(url) + " of MCP server \"" + serverName
                    + "\" answered HTTP " + status + " instead of redirecting back to mcp-host"
                    + (body.isEmpty() ? "" : "; body: " + body)
                    + ". Headless authorization needs a server that redirects at once; log in with a browser instead");
        }

        private boolean isRedirectUri(URI location) {
            URI expected = redirectUri();
            return expected.getScheme().equalsIgnoreCase(String.valueOf(location.getScheme()))
                    && expected.getHost().equalsIgnoreCase(String.valueOf(location.getHost()))
                    && expected.getPort() == location.getPort()
                    && expected.getPath().equals(location.getPath());
        }

        @Override
        public void close() {
            loopback.close();
        }
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private static Duration remaining(long deadline, Duration timeout) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new McpTimeoutException("The authorization did not complete within " + timeout.toSeconds() + " s",
                    timeout);
        }
        return Duration.ofNanos(left);
    }

    private static Duration positive(Duration timeout) {
        return timeout.isZero() || timeout.isNegative() ? Duration.ofMillis(1) : timeout;
    }

    /** A URL for messages: without user info and query (the query holds state and challenges). */
    static String describe(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT) + "://";
        String host = url.getHost() == null ? "" : url.getHost();
        String port = url.getPort() < 0 ? "" : ":" + url.getPort();
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        return scheme + host + port + path;
    }

    /** The first bytes of a body, as one line of printable text. */
    private static String preview(InputStream body) {
        try (body) {
            byte[] bytes = body.readNBytes(BODY_PREVIEW_BYTES + 1);
            boolean more = bytes.length > BODY_PREVIEW_BYTES;
            String text = new String(bytes, 0, Math.min(bytes.length, BODY_PREVIEW_BYTES), StandardCharsets.UTF_8)
                    .replaceAll("[\\p{Cntrl}\\s]+", " ").strip();
            return more ? text + "…" : text;
        } catch (IOException e) {
            return "";
        }
    }

    private static void discard(InputStream body) {
        try {
            body.close();
        } catch (IOException e) {
            // The body of a redirect is not needed.
        }
    }
}
