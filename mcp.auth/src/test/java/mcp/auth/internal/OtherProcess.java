package mcp.auth.internal;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import mcp.api.McpException;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.testkit.TestServers;

/**
 * Another mcp-host process that shares a credential store with the test that starts it: a real child JVM,
 * driven line by line through its stdin, answering one line per command on its stdout.
 *
 * <p>Arguments: the store's directory, the MCP server's URL, and {@code fresh} (a new OAuth client for every
 * round, as a run of mcp-host that starts with the round) or {@code kept} (one client for all rounds, as a host
 * that stays up). Commands:
 * <ul>
 *   <li>{@code lock ID MILLIS}: takes the lock of credential ID and keeps it; answers {@code locked}, or
 *       {@code busy} and the message.</li>
 *   <li>{@code unlock}: releases it; answers {@code unlocked}.</li>
 *   <li>{@code round N expired|refused START}: at START (epoch microseconds) renews the credential
 *       {@code remote}: {@code expired} moves this process's clock two hours on, past the token's hour, and
 *       lets the client renew before a request ({@link OAuthClient#ready()}); {@code refused} hands the client
 *       a 401 for the token it holds. Then checks that the client holds another token and that the MCP server
 *       takes it. Answers {@code ok N}, or {@code fail N} and the reason.</li>
 * </ul>
 * It prints {@code ready} once started, and ends at the end of its stdin. Its log goes to stderr.
 */
final class OtherProcess {

    /** The credential id every round renews: the server name, since the client has no {@code auth}. */
    static final String CREDENTIAL_ID = "remote";

    /** The bound of every exchange and every wait in the child. */
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private OtherProcess() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        FileAuthStorage storage = new FileAuthStorage(Path.of(args[0]));
        Child child = new Child(storage, args[1], args[2].equals("fresh"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("ready");
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.println(child.run(line.trim().split(" ")));
            }
        } finally {
            child.close();
        }
    }

    /** The state of the child between commands. */
    private static final class Child {
        private final FileAuthStorage storage;
        private final String mcpUrl;
        private final boolean fresh;
        private final ShiftedClock clock = new ShiftedClock();
        private final AtomicInteger threads = new AtomicInteger();
        private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "mcp-test-other-process-oauth-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        private AuthStorage.CredentialLock lock;
        private OAuthClient client;

        Child(FileAuthStorage storage, String mcpUrl, boolean fresh) {
            this.storage = storage;
            this.mcpUrl = mcpUrl;
            this.fresh = fresh;
        }

        String run(String[] command) {
            switch (command[0]) {
                case "lock":
                    try {
                        lock = storage.lock(command[1], Duration.ofMillis(Long.parseLong(command[2])));
                        return "locked";
                    } catch (McpException e) {
                        return "busy " + e.getMessage();
                    }
                case "unlock":
                    lock.close();
                    lock = null;
                    return "unlocked";
                case "round":
                    return round(Integer.parseInt(command[1]), command[2].equals("expired"), Long.parseLong(command[3]));
                default:
                    return "unknown command " + command[0];
            }
        }

        private String round(int round, boolean expired, long startMicros) {
            if (client == null || fresh) {
                client = new OAuthClient(CREDENTIAL_ID, URI.create(mcpUrl), Optional.empty(),
                        AuthServices.storedOnly(storage), new OAuthHttp(http, TIMEOUT, "mcp-host-test"), executor,
                        clock);
            }
            Optional<String> before = client.authorization();
            if (before.isEmpty()) {
                return "fail " + round + " no stored credential to renew";
            }
            if (expired) {
                clock.shift(Duration.ofHours(2));
            }
            awaitMicros(startMicros);
            try {
                if (expired) {
                    client.ready().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } else {
                    client.challenged(401, List.of("Bearer error=\"invalid_token\""), before, 1, "HTTP 401 (test)")
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (Exception e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                return "fail " + round + " " + oneLine(String.valueOf(cause.getMessage()));
            }
            Optional<String> after = client.authorization();
            if (after.equals(before)) {
                return "fail " + round + " the credential was not renewed (see the child's log)";
            }
            int status = ping(after.orElseThrow());
            return status == 200 ? "ok " + round : "fail " + round + " the MCP server answered " + status
                    + " to the renewed token";
        }

        private int ping(String authorization) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(mcpUrl)).timeout(TIMEOUT)
                    .header("Authorization", authorization).header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"))
                    .build();
            try {
                return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        void close() {
            if (lock != null) {
                lock.close();
            }
            executor.shutdownNow();
        }
    }

    /** Waits until a wall-clock time, at most a few seconds ahead: both children start their round together. */
    private static void awaitMicros(long startMicros) {
        long left = startMicros - nowMicros();
        if (left > TimeUnit.SECONDS.toMicros(5)) {
            throw new IllegalArgumentException("a round starts at most 5 s ahead");
        }
        while (left > 0) {
            if (left > 2_000) {
                // Sleep most of the way, and spin the last millisecond or so: a park overshoots by tens of µs.
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(left - 1_000));
            } else {
                Thread.onSpinWait();
            }
            left = startMicros - nowMicros();
        }
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + TimeUnit.NANOSECONDS.toMicros(now.getNano());
    }

    private static String oneLine(String text) {
        return text.replace('\r', ' ').replace('\n', ' ');
    }

    /** The system clock, moved on by the rounds that let the token expire. */
    private static final class ShiftedClock extends Clock {
        private volatile Duration shift = Duration.ZERO;

        void shift(Duration more) {
            shift = shift.plus(more);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        /** The same instant in another zone, shifted as this clock is now. */
        @Override
        public Clock withZone(ZoneId zone) {
            return Clock.offset(Clock.system(zone), shift);
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(shift);
        }
    }

    // ------------------------------------------------------------------------------------------ the parent's side

    /**
     * The parent's handle on one child: starts it with this JVM's java on a class path made of the code-source
     * locations of what it needs (as {@link TestServers} does for the test server), writes commands, and reads
     * answers with a bound. Its stderr goes to a file, for the reader of a failure.
     */
    static final class Handle implements AutoCloseable {
        private final String name;
        private final Process process;
        private final Writer stdin;
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        private final Path log;

        private Handle(String name, Process process, Path log) {
            this.name = name;
            this.process = process;
            this.log = log;
            this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "mcp-test-other-process-" + name + "-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /**
         * @param name a name for messages and the log file
         * @param directory the store's directory
         * @param mcpUrl the MCP server's URL, or {@code -} for a child that only locks
         * @param mode {@code fresh} or {@code kept}
         * @param logDirectory where its stderr goes
         * @return the started child, once it said {@code ready}
         */
        static Handle start(String name, Path directory, String mcpUrl, String mode, Path logDirectory)
                throws IOException {
            List<String> command = new ArrayList<>();
            command.add(TestServers.javaExecutable());
            command.addAll(List.of("-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
            command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
            command.add("-cp");
            command.add(classPath());
            command.add(OtherProcess.class.getName());
            command.addAll(List.of(directory.toString(), mcpUrl, mode));
            Path log = logDirectory.resolve(name + ".log");
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            Handle handle = new Handle(name, process, log);
            String ready = handle.answer();
            if (!ready.equals("ready")) {
                handle.close();
                throw new IllegalStateException("child " + name + " said " + ready + " instead of ready; see " + log);
            }
            return handle;
        }

        private void read() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    answers.add(line);
                }
            } catch (IOException e) {
                // The child is gone; answer() reports it.
            }
        }

        /** Sends a command without waiting for its answer. */
        void send(String command) throws IOException {
            stdin.write(command + "\n");
            stdin.flush();
        }

        /** @return the next answer, within {@link #TIMEOUT} */
        String answer() {
            try {
                String line = answers.poll(TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
                if (line == null) {
                    throw new IllegalStateException("child " + name + " did not answer within " + TIMEOUT.multipliedBy(2)
                            + (process.isAlive() ? "" : " (it ended with " + process.exitValue() + ")") + "; see " + log);
                }
                return line;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for child " + name, e);
            }
        }

        /** Kills the child at once, as a crash would, and waits (bounded) until it is gone. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("child " + name + " did not end after a kill");
            }
        }

        /**
         * Ends the child by closing its stdin, as it expects.
         *
         * @return its exit status
         */
        int finish() throws IOException, InterruptedException {
            stdin.close();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("child " + name + " did not end at the end of its input; see " + log);
            }
            return process.exitValue();
        }

        Path log() {
            return log;
        }

        @Override
        public String toString() {
            return name;
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }

        private static String classPath() {
            Set<String> entries = new LinkedHashSet<>();
            for (Class<?> type : List.of(OtherProcess.class, OAuthClient.class, McpException.class, TestServers.class,
                    tools.jackson.databind.JsonNode.class, tools.jackson.core.JsonParser.class,
                    com.fasterxml.jackson.annotation.JsonProperty.class, org.slf4j.LoggerFactory.class)) {
                entries.add(location(type));
            }
            try {
                entries.add(location(Class.forName("org.slf4j.simple.SimpleServiceProvider")));
            } catch (ClassNotFoundException e) {
                // No logging in the child then: slf4j says so once on its stderr.
            }
            return String.join(File.pathSeparator, entries);
        }

        private static String location(Class<?> type) {
            CodeSource source = type.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                throw new IllegalStateException("no code source for " + type.getName());
            }
            try {
                return Path.of(source.getLocation().toURI()).toString();
            } catch (URISyntaxException e) {
                throw new IllegalStateException("bad code source for " + type.getName(), e);
            }
        }
    }
}
