package mcp.transport.http.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import mcp.api.HeaderCommands;
import mcp.api.McpException;
import mcp.api.spi.TransportRequest;
import mcp.auth.internal.BoundedBody;
import mcp.auth.internal.OAuthClient;
import mcp.auth.internal.Urls;
import mcp.transport.http.HttpTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both HTTP transports share for one server: the URL, the config headers (checked once) with those
 * of its header commands ({@link CommandHeaders}), the limits, the {@link HttpClient} with its named daemon
 * threads, and the wording of errors.
 *
 * <p>URLs in messages and logs are {@linkplain #redact(URI) redacted} (no user info, no query: some
 * servers take API keys there); header values never appear anywhere.
 */
final class HttpEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);

    /** Headers this transport sets itself; a config header of the same name is replaced. */
    private static final java.util.Set<String> OWN_HEADERS = java.util.Set.of("accept", "content-type",
            "mcp-session-id", "mcp-protocol-version", "last-event-id");

    private static final Map<Integer, String> REASONS = Map.ofEntries(
            Map.entry(400, "Bad Request"), Map.entry(401, "Unauthorized"), Map.entry(403, "Forbidden"),
            Map.entry(404, "Not Found"), Map.entry(405, "Method Not Allowed"), Map.entry(406, "Not Acceptable"),
            Map.entry(408, "Request Timeout"), Map.entry(409, "Conflict"), Map.entry(413, "Content Too Large"),
            Map.entry(415, "Unsupported Media Type"), Map.entry(429, "Too Many Requests"),
            Map.entry(500, "Internal Server Error"), Map.entry(502, "Bad Gateway"),
            Map.entry(503, "Service Unavailable"), Map.entry(504, "Gateway Timeout"));

    final String serverName;
    final URI uri;
    /** The headers of every request, replaced when a refusal made its header commands run again. */
    final CommandHeaders headers;
    final Duration timeout;
    final long maxMessageBytes;
    final Duration closeStep;
    final HttpClient client;
    /**
     * The client's executor. Callbacks on the client's futures run here ({@code whenCompleteAsync}): the
     * JDK completes those futures on threads of its own (a new unnamed thread per task when the common
     * pool is too small, as on two cores).
     */
    final ExecutorService executor;
    /** The POSTs' own connections when the URL is plain http, else {@code null}: see {@link PlainHttp}. */
    private final PlainHttp plain;
    /**
     * The OAuth client when the transport obtains credentials itself (set once, right after
     * construction): its token goes into every request.
     */
    volatile OAuthClient oauth;

    private HttpEndpoint(String serverName, URI uri, CommandHeaders headers, Duration timeout, long maxMessageBytes,
            Duration closeStep) {
        this.serverName = serverName;
        this.uri = uri;
        this.headers = headers;
        this.timeout = timeout;
        this.maxMessageBytes = maxMessageBytes;
        this.closeStep = closeStep;
        this.executor = HttpThreads.pool(serverName);
        HttpClient.Builder builder = HttpClient.newBuilder()
                .executor(executor)
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NORMAL);
        // Plain http: HTTP/1.1 (no h2c upgrade dance); https: HTTP/2 when the server offers it.
        builder.version("https".equalsIgnoreCase(uri.getScheme()) ? HttpClient.Version.HTTP_2
                : HttpClient.Version.HTTP_1_1);
        this.client = builder.build();
        this.plain = PlainHttp.serves(uri) ? new PlainHttp(uri, timeout, executor) : null;
    }

    /** Closes the connections kept for {@link #sendAsync} (the JDK's client keeps its own until it is collected). */
    void closeConnections() {
        if (plain != null) {
            plain.close();
        }
    }

    /**
     * Sends as {@link HttpClient#sendAsync} does, without its last step: the JDK hands the completion of every
     * {@code sendAsync} future to CompletableFuture's default executor, which starts a new thread for each task where
     * the common pool is too small (fewer than three CPUs). That thread, once per request, cost more CPU than the rest
     * of a request. Here the request is sent with the blocking {@link HttpClient#send} (for plain http,
     * {@link PlainHttp#send}) on one of the client's own threads, which completes the future and then runs
     * {@code then} (no further hand-off); cancelling the future interrupts that thread, which makes the JDK abandon
     * the exchange as cancelling a {@code sendAsync} future does (and closes a {@link PlainHttp} connection).
     * A failure carries the cause the JDK's own future would carry.
     *
     * <p>The response timeout is kept here too, not in the request: the JDK wakes its selector thread for every
     * request that has one, a context switch per request, whereas a timer of {@link HttpThreads#TIMER} that is
     * cancelled before it is due wakes nobody. When it is due first, the future fails with an
     * {@link HttpTimeoutException} and the exchange is abandoned, as the JDK does.
     *
     * @param request the request, without a timeout of its own
     * @param handler how its body is read
     * @param responseTimeout how long the response (its headers, and a JSON body) may take
     * @param then what to do with the outcome, run once on a thread of {@link #executor} (a cancellation's outcome
     *     is a {@link CancellationException}); with a failure, the response is the one that came after all (its body
     *     is the caller's to close), else {@code null}
     * @param <T> the body's type
     * @return the response
     */
    <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            Duration responseTimeout, BiConsumer<HttpResponse<T>, Throwable> then) {
        Sending<T> sending = new Sending<>();
        ScheduledFuture<?> deadline = HttpThreads.TIMER.schedule(sending::expire, responseTimeout.toNanos(),
                TimeUnit.NANOSECONDS);
        PlainHttp.Written written = plain == null ? null : plain.writeAhead(request).orElse(null);
        try {
            executor.execute(() -> sending.run(this, request, handler, written, deadline, then));
        } catch (RuntimeException e) {
            deadline.cancel(false);
            if (written != null) {
                written.abandon();
            }
            throw e;
        }
        return sending;
    }

    /** A response being waited for by one of the executor's threads, which a cancellation interrupts. */
    private static final class Sending<T> extends CompletableFuture<HttpResponse<T>> {
        /** The thread in {@code send}, or {@code null}; guarded by {@code this}. */
        private Thread sender;

        /** The response timeout: the exchange is abandoned, and the future fails as the JDK's would. */
        void expire() {
            if (completeExceptionally(new HttpTimeoutException("request timed out"))) {
                synchronized (this) {
                    if (sender != null) {
                        sender.interrupt();
                    }
                }
            }
        }

        void run(HttpEndpoint endpoint, HttpRequest request, HttpResponse.BodyHandler<T> handler,
                PlainHttp.Written written, Future<?> deadline, BiConsumer<HttpResponse<T>, Throwable> then) {
            boolean send;
            synchronized (this) {
                send = !isDone();
                sender = send ? Thread.currentThread() : null;
            }
            if (!send && written != null) {
                written.abandon();
            }
            HttpResponse<T> late = null;
            if (send) {
                try {
                    HttpResponse<T> sent = endpoint.plain == null ? null
                            : endpoint.plain.send(request, handler, written).orElse(null);
                    if (sent == null) {
                        sent = endpoint.client.send(request, handler);
                    }
                    if (!complete(sent)) {
                        // Cancelled or timed out while the response came: its body may be a stream still open.
                        late = sent;
                    }
                } catch (InterruptedException e) {
                    completeExceptionally(new CancellationException("the request was abandoned"));
                } catch (IOException | RuntimeException e) {
                    // send() rethrows the exchange's failure as a new exception of a related type, with the original
                    // as its cause (a timeout excepted); sendAsync fails with the original.
                    completeExceptionally(e.getCause() != null && !(e instanceof HttpTimeoutException) ? e.getCause() : e);
                } finally {
                    synchronized (this) {
                        sender = null;
                    }
                    Thread.interrupted(); // a cancellation that came as send returned is not the next task's
                }
            }
            deadline.cancel(false);
            HttpResponse<T> response = late;
            Throwable failure = null;
            try {
                response = join();
            } catch (CancellationException e) {
                failure = e;
            } catch (CompletionException e) {
                failure = e.getCause() != null ? e.getCause() : e;
            }
            then.accept(response, failure);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            synchronized (this) {
                if (sender != null) {
                    sender.interrupt();
                }
            }
            return cancelled;
        }
    }

    /**
     * Checks the URL and the headers of a config that has no header commands.
     *
     * @param request the transport request
     * @param url the config's URL
     * @param configHeaders the config's headers (resolved)
     * @param timeout the config's timeout
     * @return the endpoint
     * @throws McpException if the URL is not an absolute http(s) URL
     */
    static HttpEndpoint of(TransportRequest request, String url, Map<String, String> configHeaders, Duration timeout) {
        return of(request, url, configHeaders, HeaderCommands.NONE, timeout);
    }

    /**
     * Checks the URL and the headers of a config, and runs its headers helper.
     *
     * @param request the transport request
     * @param url the config's URL
     * @param configHeaders the config's headers (resolved)
     * @param commands the config's header commands
     * @param timeout the config's timeout
     * @return the endpoint
     * @throws McpException if the URL is not an absolute http(s) URL
     */
    static HttpEndpoint of(TransportRequest request, String url, Map<String, String> configHeaders,
            HeaderCommands commands, Duration timeout) {
        String name = request.serverName();
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new McpException("MCP server \"" + name + "\": the url is not a valid URL (" + e.getReason()
                    + " at index " + e.getIndex() + ")", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new McpException("MCP server \"" + name + "\": the url must be an absolute http:// or https:// URL, not "
                    + redact(uri));
        }
        if (uri.getPath() == null || uri.getPath().isEmpty()) {
            uri = uri.resolve("/");
        }
        CommandHeaders headers = CommandHeaders.open(name, url, configHeaders, commands, CommandRunner.SHARED,
                System.getenv(), request.workingDirectory(), all -> usable(name, all));
        Duration bounded = timeout.isZero() || timeout.isNegative() ? Duration.ofSeconds(30) : timeout;
        return new HttpEndpoint(name, uri, headers, bounded, request.maxMessageBytes(), request.closeStepTimeout());
    }

    /** The headers that can be sent: neither one the transport sets itself nor one the JDK refuses. */
    private static Map<String, String> usable(String name, Map<String, String> headers) {
        Map<String, String> usable = new LinkedHashMap<>();
        headers.forEach((key, value) -> {
            if (OWN_HEADERS.contains(key.toLowerCase(Locale.ROOT))) {
                LOG.warn("MCP server \"{}\": header \"{}\" is set by the transport itself; the configured value is ignored",
                        name, key);
                return;
            }
            try {
                HttpRequest.newBuilder().header(key, value);
                usable.put(key, value);
            } catch (IllegalArgumentException e) {
                // Never the value (nor the JDK's message, which may quote it).
                LOG.warn("MCP server \"{}\": header \"{}\" cannot be sent by the JDK's HTTP client (a restricted name or an "
                        + "invalid character); it is left out", name, key);
            }
        });
        return Map.copyOf(usable);
    }

    /**
     * A request about to go out, and what it presents of the OAuth client's credential.
     *
     * @param builder the request, without its method
     * @param presented the {@code Authorization} (and {@code DPoP}) headers it carries from the OAuth client
     * @param headerGeneration the {@link CommandHeaders.Snapshot#generation()} of the config headers it carries
     */
    record Prepared(HttpRequest.Builder builder, OAuthClient.Presentation presented, int headerGeneration) {
    }

    /**
     * @param method the HTTP method the request will have (a DPoP proof names it)
     * @return a request builder for the URL with the config headers, the OAuth client's {@code Authorization}
     *     (and, for a DPoP-bound token, a fresh {@code DPoP} proof) and a timeout for the response headers
     */
    HttpRequest.Builder request(String method, URI target, Duration responseTimeout) {
        return prepare(method, target, responseTimeout).builder();
    }

    /**
     * As {@link #request(String, URI, Duration)}, with what was presented; {@code responseTimeout} {@code null}: none
     * in the request (for {@link #sendAsync}, which keeps the time itself).
     */
    Prepared prepare(String method, URI target, Duration responseTimeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(target)
                .setHeader("User-Agent", "mcp-host/" + HttpTransports.VERSION);
        if (responseTimeout != null) {
            builder.timeout(responseTimeout);
        }
        CommandHeaders.Snapshot snapshot = headers.current();
        snapshot.headers().forEach(builder::setHeader);
        OAuthClient client = oauth;
        if (client == null) {
            return new Prepared(builder, OAuthClient.Presentation.NONE, snapshot.generation());
        }
        OAuthClient.Presentation presented = client.present(method, target);
        presented.authorization().ifPresent(value -> builder.setHeader("Authorization", value));
        presented.proof().ifPresent(value -> builder.setHeader("DPoP", value));
        return new Prepared(builder, presented, snapshot.generation());
    }

    /** Keeps the DPoP nonce a response of the MCP server carries, for the next proofs (RFC 9449 §9). */
    void nonce(URI target, HttpResponse<?> response) {
        OAuthClient client = oauth;
        if (client != null) {
            client.nonce(target, response.headers().firstValue("DPoP-Nonce"));
        }
    }

    /** @return the URL without user info, query or fragment: safe for messages and logs */
    static String redact(URI uri) {
        return Urls.redact(uri);
    }

    /**
     * The message for a response with an unexpected status:
     * {@code <METHOD> <url> answered HTTP <status> <reason> (WWW-Authenticate: <challenge>); body: <first bytes>}.
     */
    String statusMessage(String method, URI target, HttpResponse<?> response, String excerpt) {
        return statusMessage(method, target, response, excerpt, oauth == null);
    }

    /** As above; {@code credentialsHint}: whether a 401 or 403 says how to configure credentials. */
    String statusMessage(String method, URI target, HttpResponse<?> response, String excerpt, boolean credentialsHint) {
        int status = response.statusCode();
        StringBuilder out = new StringBuilder();
        out.append(method).append(' ').append(redact(target)).append(" answered HTTP ").append(status);
        String reason = REASONS.get(status);
        if (reason != null) {
            out.append(' ').append(reason);
        }
        response.headers().firstValue("WWW-Authenticate")
                .ifPresent(challenge -> out.append(" (WWW-Authenticate: ").append(oneLine(challenge)).append(')'));
        if (excerpt != null && !excerpt.isEmpty()) {
            out.append("; body: ").append(excerpt);
        }
        if (credentialsHint && (status == 401 || status == 403)) {
            out.append("; the server wants credentials: set them in the server's \"headers\" (for example "
                    + "\"Authorization\": \"Bearer ...\") or configure \"auth\"");
        }
        return out.toString();
    }

    /** The message for an exchange that failed without a response. */
    String failureMessage(String method, URI target, Throwable error, Duration responseTimeout) {
        Throwable cause = unwrap(error);
        String what;
        if (cause instanceof HttpConnectTimeoutException) {
            what = "could not connect within " + timeout.toMillis() + " ms";
        } else if (cause instanceof HttpTimeoutException) {
            what = "no response within " + responseTimeout.toMillis() + " ms";
        } else if (cause instanceof ConnectException) {
            what = "could not connect (" + (cause.getMessage() == null ? "connection refused" : cause.getMessage()) + ")";
        } else if (cause instanceof ClosedChannelException) {
            what = "the connection was closed";
        } else if (cause instanceof IOException) {
            what = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        } else {
            what = String.valueOf(cause);
        }
        return method + " " + redact(target) + " failed: " + what;
    }

    private static String oneLine(String text) {
        String line = text.replace('\r', ' ').replace('\n', ' ');
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    /** A 401, or a 403 whose challenge says {@code insufficient_scope}: the OAuth client's business. */
    static boolean isAuthorizationChallenge(int status, java.util.List<String> challenges) {
        return status == 401 || status == 403 && challenges.stream()
                .anyMatch(value -> value.toLowerCase(Locale.ROOT).contains("insufficient_scope"));
    }

    /**
     * A refused request (401 or 403) whose headers come from commands that have not run again for it yet:
     * whether to send it again, once the commands ran.
     *
     * @param status the response's status
     * @param sentGeneration the generation of the headers the request carried
     * @param retried whether this request was sent again for new headers before (set by this call)
     * @return a future of whether to send the request again, or empty when the commands are not the answer
     */
    java.util.Optional<java.util.concurrent.CompletableFuture<Boolean>> refreshHeaders(int status, int sentGeneration,
            java.util.concurrent.atomic.AtomicBoolean retried) {
        if ((status != 401 && status != 403) || !headers.refreshable() || !retried.compareAndSet(false, true)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(headers.refresh(sentGeneration));
    }

    /**
     * Gives the endpoint its OAuth client when the request carries auth services and the config does
     * not manage its credentials itself (an {@code Authorization} header, its own or its headers helper's,
     * and no {@code auth}).
     */
    void attachOAuth(TransportRequest request, java.util.Optional<mcp.api.ServerConfig.AuthRef> auth) {
        boolean ownAuthorization = headers.current().headers().keySet().stream()
                .anyMatch("Authorization"::equalsIgnoreCase);
        // A headers helper that mints the Authorization header owns the credential, as in Claude Code: a refusal
        // runs it again, and no OAuth flow starts behind its back.
        if (request.auth().isPresent() && (auth.isPresent() && !(ownAuthorization && headers.hasHelper())
                || !ownAuthorization)) {
            oauth = OAuthClient.create(serverName, uri, auth, request.auth().get(), client, timeout, executor,
                    "mcp-host/" + HttpTransports.VERSION);
        }
    }

    /** Strips the wrappers of asynchronous failures. */
    static Throwable unwrap(Throwable error) {
        Throwable current = Objects.requireNonNull(error, "error");
        while ((current instanceof CompletionException || current instanceof ExecutionException
                || current instanceof IOException && current.getCause() instanceof BoundedBody.TooLargeException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /**
     * @return whether the failure says nothing listens at the URL any more (connection refused) or the host cannot be
     *     reached (connect timeout): the server is gone, not one request
     */
    static boolean isUnreachable(Throwable error) {
        Throwable cause = unwrap(error);
        return cause instanceof ConnectException || cause instanceof HttpConnectTimeoutException;
    }

    /** @return whether the failure is our own cancellation */
    static boolean isCancellation(Throwable error) {
        return unwrap(error) instanceof CancellationException;
    }
}
