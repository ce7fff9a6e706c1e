package mcp.gateway;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import mcp.api.McpJson;
import mcp.gateway.internal.Channels;
import mcp.gateway.internal.LinePipe;
import mcp.server.McpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent's stdio session carried to the user's {@link SharedGateway}: the agent's MCP messages pass through as they
 * are, and the session outlives the gateway. When no gateway answers, one is started ({@link Builder#starter}); when
 * none can be reached within {@link Builder#attachWait}, or the gateway ends while the agent works, the session goes
 * on with the next gateway, or else in this process ({@link Builder#fallback}), with a warning on stderr: never
 * silently broken. A request that was in flight when the gateway ended is answered with an error (it may or may not
 * have run), the session's {@code initialize} is given again to the new gateway, and the client hears that the tools,
 * prompts and resources changed.
 */
public final class Attachment {

    private static final Logger LOG = LoggerFactory.getLogger(Attachment.class);

    /** The id prefix of the {@code initialize} given again on the client's behalf, whose answer it must not see. */
    private static final String REPLAY_ID = "mcp-host-attach-replay-";
    /** The id prefix of this session's own {@code roots/list} requests to the client. */
    private static final String ROOTS_ID = "mcp-host-attach-roots-";
    /** How long the client's first messages wait for its answer to the first {@code roots/list}. */
    private static final Duration ROOTS_WAIT = Duration.ofSeconds(2);
    /** How long the requests sent to a project's gateway may take to be answered once the session moved on. */
    private static final Duration MOVE_DRAIN = Duration.ofSeconds(10);

    /** A two-way byte stream to a gateway. */
    public interface Link extends Closeable {
        /** @return what the gateway writes */
        InputStream in();

        /** @return what the gateway reads; closing it ends the gateway's input */
        OutputStream out();

        /** @return what it is, for a warning */
        String describe();
    }

    private final Path socket;
    /** The project the session is attached in: where the agent started it, until the client's roots name another. */
    private volatile Path project;
    private final Runnable starter;
    private final Supplier<Link> fallback;
    private final Duration attachWait;
    private final PrintStream warnings;
    private final boolean search;
    private final List<String> alwaysLoad;

    private final Object writeLock = new Object();
    /** The client's requests in flight, by their id's JSON text. Guarded by itself. */
    private final Map<String, JsonNode> inFlight = new LinkedHashMap<>();
    private volatile String initialize;
    private volatile String initialized;
    private volatile String replayId;
    private int replays;
    private volatile Link link;
    private volatile boolean inputEnded;
    private OutputStream client;
    /** Whether the client's {@code initialize} declared the roots capability. */
    private volatile boolean rootsDeclared;
    /** The id, as JSON text, of the {@code roots/list} this session asked last, or null. */
    private volatile String rootsId;
    private int rootsAsked;
    /** The client's messages held while its roots are awaited, or null. Guarded by {@link #heldLock}. */
    private List<String> held;
    private final Object heldLock = new Object();

    private Attachment(Builder builder) {
        this.socket = builder.socket;
        this.project = builder.project;
        this.starter = builder.starter;
        this.fallback = builder.fallback;
        this.attachWait = builder.attachWait;
        this.warnings = builder.warnings;
        this.search = builder.search;
        this.alwaysLoad = List.copyOf(builder.alwaysLoad);
    }

    /**
     * @param socket the shared gateway's socket
     * @param project the directory the agent works in
     * @return a builder
     */
    public static Builder builder(Path socket, Path project) {
        return new Builder(socket, project);
    }

    /**
     * A link to a server in this process, for {@link Builder#fallback}.
     *
     * @param server the server, serving the session's gateway
     * @param owner closes the server and what it serves
     * @return the link
     */
    public static Link inProcess(McpServer server, Runnable owner) {
        LinePipe toServer = new LinePipe();
        LinePipe toClient = new LinePipe();
        server.serveStdio(toServer.input(), toClient.output());
        return new Link() {
            @Override
            public InputStream in() {
                return toClient.input();
            }

            @Override
            public OutputStream out() {
                return toServer.output();
            }

            @Override
            public String describe() {
                return "this process";
            }

            @Override
            public void close() {
                owner.run();
            }
        };
    }

    /**
     * Asks a running shared gateway for its status.
     *
     * @param socket its socket
     * @param bound the longest wait
     * @return its status line, or empty when none answers
     */
    public static Optional<JsonNode> status(Path socket, Duration bound) {
        return control(socket, McpJson.object().set("status", McpJson.object()), bound);
    }

    /**
     * Asks a running shared gateway to end.
     *
     * @param socket its socket
     * @param bound the longest wait for its answer
     * @return whether one answered
     */
    public static boolean stop(Path socket, Duration bound) {
        return control(socket, McpJson.object().set("stop", McpJson.object()), bound).isPresent();
    }

    private static Optional<JsonNode> control(Path socket, JsonNode hello, Duration bound) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            Channels.out(channel).write((hello + "\n").getBytes(StandardCharsets.UTF_8));
            Optional<String> line = readBounded(Channels.in(channel), bound.toNanos());
            return line.map(text -> McpJson.mapper().readTree(text));
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * A line within a bound, read on a thread of its own: a socket channel's read has no timeout, and a blocking read
     * must not hold one of the common pool's few threads.
     */
    private static Optional<String> readBounded(InputStream in, long nanos)
            throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<Optional<String>> line = new CompletableFuture<>();
        Thread reading = new Thread(() -> {
            try {
                line.complete(Channels.readLine(in));
            } catch (IOException | RuntimeException e) {
                line.complete(Optional.empty());
            }
        }, "mcp-host-attach-hello");
        reading.setDaemon(true);
        reading.start();
        return line.get(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Carries the client's session until its input ends.
     *
     * @param in what the client writes
     * @param out what the client reads
     */
    public void run(InputStream in, OutputStream out) {
        this.client = out;
        relink(null);
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        try {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank() || rootsAnswer(line)) {
                    continue;
                }
                synchronized (heldLock) {
                    if (held != null) {
                        held.add(line);
                        continue;
                    }
                }
                forward(line);
            }
        } catch (IOException e) {
            LOG.debug("The client's input failed: {}", e.toString());
        }
        inputEnded = true;
        Link last = link;
        try {
            // The gateway answers what is in flight, then ends the session.
            last.out().close();
        } catch (IOException e) {
            LOG.debug("Ending the gateway's input: {}", e.toString());
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(12).toNanos();
        synchronized (inFlight) {
            while (!inFlight.isEmpty() && System.nanoTime() < deadline && link == last) {
                try {
                    inFlight.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        closeQuietly(link);
    }

    /** One of the client's messages to the gateway; then, after its handshake's end, the client's roots asked. */
    private void forward(String line) {
        String id = remember(line);
        Link current = link;
        try {
            send(current, line);
        } catch (IOException e) {
            // Not delivered: sent again to the next gateway, not failed as a request in flight.
            resend(current, line, id);
        }
        String method = method(line);
        if (rootsDeclared && (method.equals("notifications/initialized")
                || method.equals("notifications/roots/list_changed"))) {
            askRoots(method.equals("notifications/initialized"));
        }
    }

    private static String method(String line) {
        try {
            return McpJson.mapper().readTree(line).path("method").asString("");
        } catch (RuntimeException e) {
            return "";
        }
    }

    /**
     * Asks the client for its roots: the project is where the agent started the session, unless the roots say the
     * agent works elsewhere. The first time, the client's next messages wait for the answer (a bounded while), so that
     * its first lists come from the project its roots name.
     */
    private void askRoots(boolean first) {
        String id;
        synchronized (this) {
            id = ROOTS_ID + (++rootsAsked);
        }
        rootsId = "\"" + id + "\"";
        if (first) {
            synchronized (heldLock) {
                held = new ArrayList<>();
            }
            Thread timeout = new Thread(() -> {
                try {
                    Thread.sleep(ROOTS_WAIT.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                release();
            }, "mcp-host-attach-roots-wait");
            timeout.setDaemon(true);
            timeout.start();
        }
        write(McpJson.object().put("jsonrpc", "2.0").put("id", id).put("method", "roots/list").toString());
    }

    /** Sends the messages held for the roots' answer, in their order. */
    private void release() {
        synchronized (heldLock) {
            List<String> lines = held;
            held = null;
            if (lines != null) {
                lines.forEach(this::forward);
            }
        }
    }

    /**
     * @return whether the line is the client's answer to this session's own {@code roots/list}: the session moves to
     *     the project the roots name, and the answer goes no further
     */
    private boolean rootsAnswer(String line) {
        String asked = rootsId;
        if (asked == null || !line.contains(ROOTS_ID)) {
            return false;
        }
        JsonNode message;
        try {
            message = McpJson.mapper().readTree(line);
        } catch (RuntimeException e) {
            return false;
        }
        if (message.has("method") || !message.has("id") || !message.get("id").toString().equals(asked)) {
            return false;
        }
        rootsId = null;
        Optional<Path> named = projectOf(message.path("result").path("roots"), project);
        if (named.isPresent()) {
            move(named.get());
        }
        release();
        return true;
    }

    /**
     * The project a client's roots name, if not the one the session is in: the session's directory when it lies in one
     * of the roots (the agent started where it works), else the first root that is a directory here.
     *
     * @param roots the {@code roots} of a {@code roots/list} result
     * @param current the session's project now
     * @return the project to move to; empty: stay
     */
    static Optional<Path> projectOf(JsonNode roots, Path current) {
        List<Path> directories = new ArrayList<>();
        for (JsonNode root : roots) {
            String uri = root.path("uri").asString("");
            try {
                URI parsed = new URI(uri);
                if ("file".equalsIgnoreCase(parsed.getScheme())) {
                    Path path = Path.of(parsed).toAbsolutePath().normalize();
                    if (Files.isDirectory(path)) {
                        directories.add(path);
                    }
                }
            } catch (URISyntaxException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                LOG.debug("A root that is not a local directory: {}", uri);
            }
        }
        if (directories.isEmpty() || directories.stream().anyMatch(current::startsWith)) {
            return Optional.empty();
        }
        return Optional.of(directories.get(0));
    }

    /**
     * Moves the session to the gateway of another project: the client's next messages go there, after its handshake
     * given again; what the old project's gateway still owes is answered from there, for a bounded while. When the
     * shared gateway cannot be had for it, the session stays where it is.
     */
    private synchronized void move(Path to) {
        Path from = project;
        Link old = link;
        project = to;
        Optional<Link> next = tryAttach(System.nanoTime() + attachWait.toNanos());
        if (next.isEmpty()) {
            project = from;
            warnings.println("mcp-host serve: the client's roots name " + to + ", but the shared gateway could not"
                    + " serve it there; the session stays in " + from);
            return;
        }
        LOG.info("The client's roots name {}: the session moves there from {}", to, from);
        Set<String> owed;
        synchronized (inFlight) {
            owed = new HashSet<>(inFlight.keySet());
        }
        Link started = next.get();
        Thread reading = new Thread(() -> pump(started), "mcp-host-attach-pump");
        reading.setDaemon(true);
        reading.start();
        replay(started); // before the client's next messages can take the link, as in relink
        link = started;
        Thread draining = new Thread(() -> {
            long deadline = System.nanoTime() + MOVE_DRAIN.toNanos();
            synchronized (inFlight) {
                while (owed.stream().anyMatch(inFlight::containsKey) && System.nanoTime() < deadline) {
                    try {
                        inFlight.wait(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            closeQuietly(old);
        }, "mcp-host-attach-move");
        draining.setDaemon(true);
        draining.start();
    }

    private void resend(Link failed, String line, String id) {
        if (id != null) {
            synchronized (inFlight) {
                inFlight.remove(id);
            }
        }
        boolean start = line.equals(initialize);
        if (start) {
            // The session's start itself failed: the new gateway gets it once, from the client, not replayed.
            initialize = null;
        }
        relink(failed);
        if (start) {
            initialize = line;
        }
        remember(line);
        try {
            send(link, line);
        } catch (IOException e) {
            LOG.debug("The next gateway failed too: {}", e.toString());
        }
    }

    /**
     * Notes what must be given again to a new gateway, and what a gateway's end leaves unanswered.
     *
     * @return the id of the request, as JSON text, or null for anything else
     */
    private String remember(String line) {
        JsonNode message;
        try {
            message = McpJson.mapper().readTree(line);
        } catch (RuntimeException e) {
            return null;
        }
        String method = message.path("method").asString("");
        if (method.equals("initialize")) {
            initialize = line;
            rootsDeclared = message.path("params").path("capabilities").has("roots");
        } else if (method.equals("notifications/initialized")) {
            initialized = line;
        }
        if (!method.isEmpty() && message.has("id")) {
            String id = message.get("id").toString();
            synchronized (inFlight) {
                inFlight.put(id, message.get("id"));
            }
            return id;
        }
        return null;
    }

    private static void send(Link to, String line) throws IOException {
        OutputStream out = to.out();
        synchronized (to) {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** What the gateway says, to the client, until the gateway's stream ends. */
    private void pump(Link from) {
        BufferedReader reader = new BufferedReader(new InputStreamReader(from.in(), StandardCharsets.UTF_8));
        try {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isBlank() && toClient(line)) {
                    write(line);
                }
            }
        } catch (IOException e) {
            LOG.debug("The gateway's stream failed: {}", e.toString());
        }
        boolean current;
        synchronized (this) { // after a relink or move that is still publishing this link
            current = link == from;
        }
        if (!inputEnded && current) {
            relink(from);
        } else {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    /** @return whether the line is the client's to see: not the answer to a replayed initialize */
    private boolean toClient(String line) {
        JsonNode message;
        try {
            message = McpJson.mapper().readTree(line);
        } catch (RuntimeException e) {
            return true;
        }
        if (message.has("id") && !message.has("method")) {
            String id = message.get("id").toString();
            if (replayId != null && id.equals(replayId)) {
                return false;
            }
            synchronized (inFlight) {
                inFlight.remove(id);
                inFlight.notifyAll();
            }
        }
        return true;
    }

    private void write(String line) {
        synchronized (writeLock) {
            try {
                client.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                client.flush();
            } catch (IOException e) {
                LOG.debug("The client's output failed: {}", e.toString());
            }
        }
    }

    /**
     * A new link after {@code failed} ended (null: the first): the shared gateway, started if none answers, else this
     * process. Once per failure, whoever notices it first.
     */
    private synchronized void relink(Link failed) {
        if (link != failed) {
            return;
        }
        if (failed != null) {
            closeQuietly(failed);
            failInFlight();
        }
        Link next = attach().orElse(null);
        boolean attached = next != null;
        if (!attached) {
            warnings.println("mcp-host serve: the shared gateway could not be reached within " + attachWait.toSeconds()
                    + " s; serving this session in this process");
            next = fallback.get();
        }
        Link started = next;
        Thread reading = new Thread(() -> pump(started), "mcp-host-attach-pump");
        reading.setDaemon(true);
        reading.start();
        // The session's start goes first on the new link: the client's next message, which takes the link once it
        // is published, must not reach the new gateway before the handshake it belongs to.
        if (failed != null) {
            replay(next);
        }
        link = next;
        if (attached && failed != null) {
            warnings.println("mcp-host serve: the shared gateway ended; this session goes on with " + next.describe());
        }
    }

    /** Gives the new gateway the session's start, and tells the client to list again. */
    private void replay(Link to) {
        try {
            if (initialize != null) {
                ObjectNode again = (ObjectNode) McpJson.mapper().readTree(initialize);
                replayId = "\"" + REPLAY_ID + (++replays) + "\"";
                again.put("id", REPLAY_ID + replays);
                send(to, again.toString());
                if (initialized != null) {
                    send(to, initialized);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Giving the session's start again failed: {}", e.toString());
        }
        for (String list : new String[] {"tools", "prompts", "resources"}) {
            write(McpJson.object().put("jsonrpc", "2.0").put("method", "notifications/" + list + "/list_changed")
                    .toString());
        }
    }

    private void failInFlight() {
        Map<String, JsonNode> lost;
        synchronized (inFlight) {
            lost = new LinkedHashMap<>(inFlight);
            inFlight.clear();
            inFlight.notifyAll();
        }
        lost.values().forEach(id -> {
            ObjectNode error = McpJson.object().put("jsonrpc", "2.0");
            error.set("id", id);
            error.putObject("error").put("code", -32603).put("message", "mcp-host's shared gateway ended while it"
                    + " handled this request; it may or may not have run. The session goes on: ask again.");
            write(error.toString());
        });
    }

    /** The shared gateway, started when none answers, within {@link Builder#attachWait}. */
    private Optional<Link> attach() {
        long start = System.nanoTime();
        long deadline = start + attachWait.toNanos();
        // A gateway that is still ending holds its lock a little while, and two agents may start one each at once:
        // the start is tried again, less often each time, until one answers or the bound is reached.
        long nextStart = start;
        long pause = TimeUnit.SECONDS.toNanos(1);
        while (true) {
            Optional<Link> attached = tryAttach(deadline);
            if (attached.isPresent()) {
                return attached;
            }
            long now = System.nanoTime();
            if (now > deadline) {
                return Optional.empty();
            }
            if (now >= nextStart) {
                try {
                    starter.run();
                } catch (RuntimeException e) {
                    LOG.debug("Starting the shared gateway failed: {}", e.toString());
                }
                nextStart = now + pause;
                pause *= 2;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    private Optional<Link> tryAttach(long deadline) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            SocketChannel connected = channel;
            InputStream in = Channels.in(connected);
            OutputStream out = Channels.out(connected);
            ObjectNode hello = McpJson.object();
            ObjectNode attach = hello.putObject("attach").put("project", project.toString());
            if (search) {
                attach.put("search", true);
                alwaysLoad.forEach(attach.putArray("alwaysLoad")::add);
            }
            out.write((hello + "\n").getBytes(StandardCharsets.UTF_8));
            long left = Math.max(1, deadline - System.nanoTime());
            Optional<String> answer = readBounded(in, left);
            JsonNode reply = answer.map(text -> McpJson.mapper().readTree(text)).orElse(McpJson.object());
            if (!reply.has("attached")) {
                if (reply.has("error")) {
                    warnings.println("mcp-host serve: the shared gateway refused: " + reply.path("error").asString());
                }
                connected.close();
                return Optional.empty();
            }
            long pid = reply.path("attached").path("pid").asLong();
            return Optional.of(new Link() {
                @Override
                public InputStream in() {
                    return in;
                }

                @Override
                public OutputStream out() {
                    return out;
                }

                @Override
                public String describe() {
                    return "the shared gateway (pid " + pid + ")";
                }

                @Override
                public void close() throws IOException {
                    connected.close();
                }
            });
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            closeQuietly(channel);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(channel);
            return Optional.empty();
        }
    }

    private static void closeQuietly(Closeable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (IOException e) {
            LOG.debug("Closing: {}", e.toString());
        }
    }

    /** Builds an {@link Attachment}. */
    public static final class Builder {
        private final Path socket;
        private final Path project;
        private Runnable starter = () -> { };
        private Supplier<Link> fallback;
        private Duration attachWait = Duration.ofSeconds(15);
        private PrintStream warnings = System.err;
        private boolean search;
        private Set<String> alwaysLoad = Set.of();

        private Builder(Path socket, Path project) {
            this.socket = Objects.requireNonNull(socket, "socket");
            this.project = Objects.requireNonNull(project, "project").toAbsolutePath().normalize();
        }

        /**
         * @param start starts a shared gateway in the background (e.g. {@code mcp-host serve --shared}), when none
         *     answers; it need not wait for it
         * @return this builder
         */
        public Builder starter(Runnable start) {
            this.starter = Objects.requireNonNull(start, "start");
            return this;
        }

        /**
         * @param inProcess a gateway in this process, for when no shared one can be reached
         * @return this builder
         */
        public Builder fallback(Supplier<Link> inProcess) {
            this.fallback = Objects.requireNonNull(inProcess, "inProcess");
            return this;
        }

        /**
         * @param wait how long an attach may take, a gateway's start included (default 15 s)
         * @return this builder
         */
        public Builder attachWait(Duration wait) {
            this.attachWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /**
         * @param stream where warnings go (default stderr: an agent's log of its server)
         * @return this builder
         */
        public Builder warnings(PrintStream stream) {
            this.warnings = Objects.requireNonNull(stream, "stream");
            return this;
        }

        /**
         * @param on whether this session gets the deferred mode (its own list, search_tools)
         * @param names in it, the servers and tools always listed besides those their configs name
         * @return this builder
         */
        public Builder search(boolean on, Set<String> names) {
            this.search = on;
            this.alwaysLoad = Set.copyOf(names);
            return this;
        }

        /** @return the attachment */
        public Attachment build() {
            Objects.requireNonNull(fallback, "fallback");
            return new Attachment(this);
        }
    }
}
