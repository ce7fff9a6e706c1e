package mcp.bench.http.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The minimal Streamable HTTP endpoint on Jetty 12.1 core, the same as {@code mcp.bench.http.jdk.JdkServer}
 * (see there for the endpoints and the command line), written the way Jetty's core API is meant to be used: the
 * body read asynchronously with a bound ({@link Content.Source#asByteArrayAsync}), every write asynchronous with a
 * callback, a GET stream's writes chained one after another; a bounded {@link QueuedThreadPool} and the connector's
 * idle timeout.
 */
public final class JettyServer extends Handler.Abstract {

    private final Map<String, Stream> streams = new ConcurrentHashMap<>();
    private final Map<String, Wire.Flood> floods = new ConcurrentHashMap<>();
    private final int maxBody;

    private JettyServer(int maxBody) {
        this.maxBody = maxBody;
    }

    /**
     * Starts the server and waits for it to end.
     *
     * @param args the command line
     * @throws Exception if it cannot start
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        int threads = Integer.parseInt(options.getOrDefault("--threads", "32"));
        QueuedThreadPool pool = new QueuedThreadPool(threads, Math.min(8, threads));
        pool.setName("jetty-http");
        Server server = new Server(pool);
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);
        // One acceptor and one selector: what Jetty picks itself on 2 cores.
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(Integer.parseInt(options.getOrDefault("--port", "0")));
        connector.setIdleTimeout(Long.parseLong(options.getOrDefault("--idle-timeout-ms", "30000")));
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        server.setHandler(new JettyServer(Integer.parseInt(options.getOrDefault("--max-body",
                String.valueOf(Wire.DEFAULT_MAX_BODY)))));
        server.start();
        System.out.println("READY " + connector.getLocalPort());
        System.out.flush();
        server.join();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        if (path.equals("/stats")) {
            String floodJson = floods.entrySet().stream().map(e -> "\"" + e.getKey() + "\":" + e.getValue().json())
                    .collect(Collectors.joining(",", "{", "}"));
            json(response, ("{\"streams\":" + streams.size() + ",\"floods\":" + floodJson + "}")
                    .getBytes(StandardCharsets.UTF_8), callback);
        } else if (!path.equals("/mcp")) {
            Response.writeError(request, response, callback, 404);
        } else if (request.getMethod().equals("POST")) {
            post(request, response, callback);
        } else if (request.getMethod().equals("GET")) {
            get(request, response, callback);
        } else {
            Response.writeError(request, response, callback, 405);
        }
        return true;
    }

    private void post(Request request, Response response, Callback callback) {
        if (request.getLength() > maxBody) {
            tooLarge(response, callback);
            return;
        }
        boolean sse = "reply=sse".equals(request.getHttpURI().getQuery());
        Content.Source.asByteArrayAsync(request, maxBody).whenComplete((body, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause instanceof IllegalStateException) {
                    // A body without Content-Length that passes the bound: "Max size (N) exceeded".
                    tooLarge(response, callback);
                } else {
                    // The read failed (the idle timeout of a stalled upload, a reset): Jetty ends the exchange.
                    System.err.println("jetty: body read failed: " + cause);
                    callback.failed(cause);
                }
                return;
            }
            String text = new String(body, StandardCharsets.UTF_8);
            String method = Wire.field(text, "method");
            if ("bench/push".equals(method)) {
                Stream stream = streams.get(String.valueOf(Wire.field(text, "stream")));
                if (stream == null) {
                    reply(response, Wire.reply(text, "no stream"), sse, callback);
                } else {
                    stream.write(Wire.pushEvent(Wire.field(text, "seq"))).whenComplete((ok, error) ->
                            reply(response, Wire.reply(text, error == null ? "pushed" : "no stream"), sse, callback));
                }
            } else if ("bench/flood".equals(method)) {
                reply(response, Wire.reply(text, flood(text) ? "flooding" : "no stream"), sse, callback);
            } else {
                reply(response, Wire.reply(text, "ok"), sse, callback);
            }
        });
    }

    private static void reply(Response response, byte[] reply, boolean sse, Callback callback) {
        if (sse) {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            // The event, then the end of the response: chunked, as a server that streams its reply sends it.
            response.write(false, ByteBuffer.wrap(Wire.event(reply)), Callback.from(callback::succeeded, callback::failed));
        } else {
            json(response, reply, callback);
        }
    }

    private static void json(Response response, byte[] body, Callback callback) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private static void tooLarge(Response response, Callback callback) {
        response.setStatus(413);
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0);
        response.write(true, null, callback);
    }

    private void get(Request request, Response response, Callback callback) {
        String query = request.getHttpURI().getQuery();
        String name = query != null && query.startsWith("stream=") ? query.substring(7) : "default";
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        Stream stream = new Stream(response, callback);
        stream.write(": open\n\n".getBytes(StandardCharsets.UTF_8));
        Stream old = streams.put(name, stream);
        if (old != null) {
            old.close(null);
        }
        // The callback stays open: the response goes on until a write fails or the stream is replaced.
    }

    private boolean flood(String request) {
        String name = String.valueOf(Wire.field(request, "stream"));
        Stream stream = streams.get(name);
        if (stream == null) {
            return false;
        }
        Wire.Flood flood = new Wire.Flood(Long.parseLong(Wire.field(request, "bytes")));
        byte[] event = Wire.floodEvent(Integer.parseInt(Wire.field(request, "event")));
        floods.put(name, flood);
        Thread thread = new Thread(() -> {
            Throwable failure = null;
            try {
                while (flood.written.get() < flood.target) {
                    // One write at a time: the next event is written once the stream took the last one.
                    stream.write(event).get();
                    flood.wrote(event.length);
                }
            } catch (ExecutionException e) {
                failure = e.getCause();
            } catch (InterruptedException | RuntimeException e) {
                failure = e;
            }
            if (failure != null) {
                streams.remove(name, stream);
                stream.close(failure);
            }
            flood.ended(failure);
        }, "flood-" + name);
        thread.setDaemon(true);
        thread.start();
        return true;
    }

    /** One open GET stream: writes are chained, each issued when the one before it completed. */
    private static final class Stream {
        private final Response response;
        private final Callback done;
        private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

        Stream(Response response, Callback done) {
            this.response = response;
            this.done = done;
        }

        synchronized CompletableFuture<Void> write(byte[] bytes) {
            tail = tail.thenCompose(previous -> {
                CompletableFuture<Void> written = new CompletableFuture<>();
                response.write(false, ByteBuffer.wrap(bytes), Callback.from(() -> written.complete(null),
                        written::completeExceptionally));
                return written;
            });
            return tail;
        }

        void close(Throwable failure) {
            if (failure == null) {
                done.succeeded();
            } else {
                done.failed(failure);
            }
        }
    }
}
