package mcp.transport.http;

import java.nio.file.Path;
import java.time.Duration;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.TransportProvider;
import mcp.auth.AuthProviders;
import mcp.auth.internal.OAuthClient;
import mcp.transport.http.internal.LegacySseTransportProvider;
import mcp.transport.http.internal.StreamableHttpTransportProvider;
import mcp.transport.http.internal.ValuesAuthResolver;

/**
 * The ids, fixed limits and factories of the HTTP transports, of the value-substitution auth
 * resolver and of the file auth storage.
 *
 * <p>The host normally finds them with {@link java.util.ServiceLoader}; an embedder that switches
 * discovery off passes {@link #httpProvider()}, {@link #sseProvider()}, {@link #valuesResolver()} and
 * {@link #defaultAuthStorage()} to the host builder instead.
 *
 * <h2>{@code http}: Streamable HTTP</h2>
 * <ul>
 *   <li>Every message is a POST to the config's {@code url} with {@code Accept: application/json,
 *       text/event-stream}, {@code Content-Type: application/json} and the config's headers (on every
 *       request, GET and DELETE included; a header the JDK client cannot send, such as {@code Host}, is
 *       left out with a warning naming it). After {@code initialize} the requests carry the
 *       {@code Mcp-Session-Id} the server gave and {@code MCP-Protocol-Version}.</li>
 *   <li>A reply may be JSON or an SSE stream on which the server's notifications and requests come
 *       before the reply. An SSE stream that ends before the reply is resumed with a GET carrying
 *       {@code Last-Event-ID}, after the server's {@code retry} interval (else 1 s, 2 s, 4 s ... 10 s);
 *       more than {@value #MAX_RECONNECT_FAILURES} failed attempts in a row, no event id, or a 404/405
 *       to the GET fail that request with the reason.</li>
 *   <li>After the handshake a GET stream carries what the server sends outside requests (405: the
 *       server offers none). {@code notifications/initialized} waits at most {@link #GET_READY_WAIT}
 *       for it to open, and nothing is sent before initialized was accepted.</li>
 *   <li>A 404 for a known session: the session is dropped, the client initializes a new one over the
 *       same transport, and the refused requests are sent again (once: a new session refused at once
 *       closes the transport).</li>
 *   <li>An {@code initialize} POST answered 400, 404 or 405 by a server that never gave this transport a
 *       session: the legacy HTTP+SSE transport is tried at the same URL, and used from then on.</li>
 *   <li>Close: streams closed, the session ended with DELETE (bounded by the close step).</li>
 *   <li>The stateless revision 2026-07-28 (a message whose {@code _meta} carries
 *       {@code io.modelcontextprotocol/protocolVersion}): {@code MCP-Protocol-Version}, {@code Mcp-Method} and
 *       {@code Mcp-Name} on each POST, no session, GET stream, resumption or DELETE; a 4xx whose body is a
 *       JSON-RPC error is the request's error response; {@code notifications/cancelled} closes the request's
 *       stream instead of being sent. A server that answers such a request 404 or 405 without a JSON-RPC body
 *       gets the legacy HTTP+SSE fallback at once. Once {@code initialize} was sent, the connection speaks
 *       the handshake only.</li>
 * </ul>
 *
 * <h2>{@code sse}: legacy HTTP+SSE</h2>
 * GET the config's {@code url} (an SSE stream), wait (at most the config's timeout) for the
 * {@code endpoint} event, which must name a URL of the same origin, POST every message there, read
 * every reply from the stream. The transport closes when the stream ends.
 *
 * <h2>Both</h2>
 * <ul>
 *   <li>Timeouts: connecting is bounded by the config's timeout; so are the response headers of
 *       everything but requests, whose replies the client's request timeout bounds (and
 *       {@value #REQUEST_BACKSTOP_FACTOR} times the config's timeout as a backstop).</li>
 *   <li>A JSON body or SSE event larger than {@link mcp.api.spi.TransportRequest#maxMessageBytes()}
 *       closes the transport with {@code message from server exceeds the limit of <n> bytes}.</li>
 *   <li>Errors say what happened: {@code <METHOD> <url> answered HTTP <status> <reason>
 *       (WWW-Authenticate: <challenge>); body: <first bytes>}, or {@code <METHOD> <url> failed: <cause>}.
 *       URLs are shown without user info and query (servers take API keys there); header values never
 *       appear in messages or logs.</li>
 * </ul>
 *
 * <h2>{@code values}: the auth resolver</h2>
 * Env values (stdio) and header values (http, sse): {@code !command} runs through {@code /bin/sh -c}
 * (at most {@link #COMMAND_TIMEOUT}, trimmed stdout, result kept for the JVM, concurrent runs of one
 * command shared; failure or empty output removes the key with a warning naming the key); a value
 * naming a non-empty environment variable takes its value. The values of a config's {@code auth.options}
 * (http) are resolved the same way. A config with {@code auth} ({@code oauth} or {@code apikey}) whose
 * {@code credentialId} has a credential in the auth storage gets {@code Authorization: Bearer <token>}
 * (http, sse; unless the config sets an {@code Authorization} header) or {@code OAUTH_ACCESS_TOKEN}
 * (stdio; unless the config sets it). A missing credential is no error there: the HTTP transport's
 * OAuth client may obtain one.
 *
 * <h2>{@code file}: the auth storage</h2>
 * Since the OAuth client became module {@code mcp.auth}, the storage lives there
 * ({@code mcp.auth.AuthProviders} describes it); the factories here delegate to it and stay for
 * source compatibility.
 */
public final class HttpTransports {

    /** The id of the Streamable HTTP provider, which is also the {@link mcp.api.ServerConfig#type()} it serves. */
    public static final String HTTP_PROVIDER_ID = "http";

    /** The id of the legacy HTTP+SSE provider. */
    public static final String SSE_PROVIDER_ID = "sse";

    /** The id of the value-substitution auth resolver. */
    public static final String VALUES_RESOLVER_ID = "values";

    /** The id of the file auth storage of module {@code mcp.auth} ({@code mcp.auth.AuthProviders}). */
    public static final String FILE_STORAGE_ID = AuthProviders.FILE_STORAGE_ID;

    /** Sent in the {@code User-Agent} header as {@code mcp-host/<version>}. */
    public static final String VERSION = OAuthClient.VERSION;

    /** How long {@code notifications/initialized} waits for the GET stream to open. */
    public static final Duration GET_READY_WAIT = Duration.ofSeconds(2);

    /** Failed reconnects in a row after which a stream is given up. */
    public static final int MAX_RECONNECT_FAILURES = 5;

    /** A request's reply is given up after this many times the config's timeout, whatever the client does. */
    public static final int REQUEST_BACKSTOP_FACTOR = 10;

    /** The bound of one {@code !command}. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private HttpTransports() {
    }

    /** @return a new Streamable HTTP provider (id {@value #HTTP_PROVIDER_ID}), the one ServiceLoader finds */
    public static TransportProvider httpProvider() {
        return new StreamableHttpTransportProvider();
    }

    /** @return a new legacy HTTP+SSE provider (id {@value #SSE_PROVIDER_ID}), the one ServiceLoader finds */
    public static TransportProvider sseProvider() {
        return new LegacySseTransportProvider();
    }

    /** @return the value-substitution resolver (id {@value #VALUES_RESOLVER_ID}), the one ServiceLoader finds */
    public static AuthResolver valuesResolver() {
        return new ValuesAuthResolver();
    }

    /**
     * @param directory the directory of the credential files; created owner-only on the first save
     * @return a file auth storage (id {@value #FILE_STORAGE_ID}) in that directory
     */
    public static AuthStorage fileAuthStorage(Path directory) {
        return AuthProviders.fileAuthStorage(directory);
    }

    /**
     * @return the file auth storage (id {@value #FILE_STORAGE_ID}) in the default directory, read from
     *     the JVM's environment: the one ServiceLoader finds ({@link AuthProviders#defaultAuthStorage()}; a host
     *     given it moves it under the host's own home and environment)
     */
    public static AuthStorage defaultAuthStorage() {
        return AuthProviders.defaultAuthStorage();
    }
}
