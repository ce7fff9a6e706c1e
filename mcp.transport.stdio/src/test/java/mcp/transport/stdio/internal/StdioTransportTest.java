package mcp.transport.stdio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The stdio transport against real child processes ({@code cat} and small bash scripts). */
class StdioTransportTest {

    /** Short close steps keep the tests fast; the escalation logic is the same at any length. */
    private static final Duration STEP = Duration.ofMillis(300);
    /** Generous: these bounds catch hangs, not slowness. */
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final StdioTransportProvider provider = new StdioTransportProvider();
    private final List<Transport> opened = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void noChildProcessRemains() {
        opened.forEach(Transport::close);
        // Our children are reaped by the JDK as soon as they exit; allow a moment for that.
        List<ProcessHandle> left = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < deadline) {
            left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).collect(Collectors.toList());
            if (left.isEmpty()) {
                break;
            }
            Waits.sleep(20);
        }
        assertEquals(List.of(), left.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList(),
                "child processes left behind");
        assertTrue(LiveTransports.snapshotOfLive().stream().noneMatch(opened::contains), "closed transports still registered");
    }

    private StdioTransport open(String name, StdioServerConfig config) {
        return open(TransportRequest.of(name, config, dir).withCloseStepTimeout(STEP));
    }

    private StdioTransport open(TransportRequest request) {
        StdioTransport transport = (StdioTransport) provider.open(request);
        opened.add(transport);
        return transport;
    }

    private static StdioServerConfig bash(String script) {
        return StdioServerConfig.of("bash", List.of("-c", script));
    }

    private static JsonRpcRequest request(long id, String text) {
        return new JsonRpcRequest(RequestId.of(id), "echo", McpJson.object().put("n", (int) id).put("text", text));
    }

    @Test
    void catEchoesAThousandConcurrentMessages() throws Exception {
        StdioTransport transport = open("cat", StdioServerConfig.of("cat", List.of()));
        Recorder recorder = new Recorder();
        transport.start(recorder);

        Set<JsonRpcMessage> sent = concurrentSet();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        ExecutorService senders = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<CompletableFuture<Void>>> submitted = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                // Unicode, quotes and an escaped newline: all must survive the line framing.
                JsonRpcRequest message = request(i, "héllo \"" + i + "\"\nline two ✓");
                sent.add(message);
                submitted.add(CompletableFuture.supplyAsync(() -> transport.send(message), senders));
            }
            for (CompletableFuture<CompletableFuture<Void>> s : submitted) {
                writes.add(s.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            }
        } finally {
            senders.shutdownNow();
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);

        List<JsonRpcMessage> received = recorder.take(1_000, WAIT);
        assertEquals(sent, new HashSet<>(received));
        assertEquals(0, transport.skippedLines());

        transport.close();
        TransportClosedException closed = recorder.awaitClose(WAIT);
        assertEquals("closed by client", closed.reason());
        assertEquals("Transport closed: closed by client", closed.getMessage());
        assertFalse(transport.isOpen());
        assertFalse(ProcessHandle.of(transport.pid()).map(ProcessHandle::isAlive).orElse(false));
    }

    private static <T> Set<T> concurrentSet() {
        return java.util.concurrent.ConcurrentHashMap.newKeySet();
    }

    @Test
    void environmentIsTheHostsPlusTheConfigsAndRelativeCwdResolvesAgainstTheWorkingDirectory() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        String script = "printf '{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"v\":\"%s\",\"home\":\"%s\","
                + "\"path\":\"%s\",\"cwd\":\"%s\"}}\\n' \"$FOO\" \"$HOME\" \"$PATH\" \"$(pwd -P)\"; cat";
        StdioServerConfig config = bash(script)
                .withEnv(Map.of("FOO", "bar baz", "HOME", "/override/home"))
                .withCwd("sub");
        StdioTransport transport = open("env", config);
        Recorder recorder = new Recorder();
        transport.start(recorder);

        JsonNode params = ((JsonRpcNotification) recorder.next(WAIT)).params();
        assertEquals("bar baz", params.get("v").asString());
        assertEquals("/override/home", params.get("home").asString(), "config env wins over the host's");
        assertEquals(System.getenv("PATH"), params.get("path").asString(), "host env is inherited");
        assertEquals(sub.toRealPath().toString(), params.get("cwd").asString());
    }

    @Test
    void anInheritedEnvListPassesOnlyThoseOfTheHostsVariablesPlusTheConfigs() throws Exception {
        // A variable every JVM under Maven or a shell has, and one the list lets through.
        String script = "printf '{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"names\":\"%s\",\"path\":\"%s\"}}\\n'"
                + " \"$(env | cut -d= -f1 | sort | tr '\\n' ' ')\" \"$PATH\"; cat";
        StdioServerConfig base = bash(script);
        StdioServerConfig config = new StdioServerConfig(base.command(), base.args(), Map.of("OWN", "1"),
                Optional.of(List.of("PATH", "NOT_SET_ANYWHERE")), Optional.empty(), base.timeout(), Optional.empty(),
                true, Optional.empty(), Optional.empty(), List.of(), false);
        StdioTransport transport = open("inherited", config);
        Recorder recorder = new Recorder();
        transport.start(recorder);

        JsonNode params = ((JsonRpcNotification) recorder.next(WAIT)).params();
        assertEquals(System.getenv("PATH"), params.get("path").asString());
        List<String> names = List.of(params.get("names").asString().trim().split(" "));
        // bash itself adds a few (PWD, SHLVL, _); none of the host's others may be there.
        List<String> fromHost = names.stream().filter(n -> System.getenv(n) != null && !n.equals("PATH")
                && !List.of("PWD", "SHLVL", "_", "OLDPWD").contains(n)).toList();
        assertEquals(List.of(), fromHost, "only PATH of the host's variables: " + names);
        assertTrue(names.contains("OWN"), names::toString);
    }

    @Test
    void withoutCwdTheChildRunsInTheWorkingDirectory() throws Exception {
        StdioTransport transport = open("cwd",
                bash("printf '{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"cwd\":\"%s\"}}\\n' \"$(pwd -P)\"; cat"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        JsonNode params = ((JsonRpcNotification) recorder.next(WAIT)).params();
        assertEquals(dir.toRealPath().toString(), params.get("cwd").asString());
    }

    @Test
    void aBareCommandIsLookedUpOnTheConfigsPath() throws Exception {
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path tool = bin.resolve("my-mcp-tool-4711");
        Files.writeString(tool, "#!/bin/sh\necho '{\"jsonrpc\":\"2.0\",\"method\":\"found\"}'\nexec cat\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwx------"));
        StdioServerConfig config = StdioServerConfig.of("my-mcp-tool-4711", List.of())
                .withEnv(Map.of("PATH", bin + ":" + System.getenv("PATH")));
        StdioTransport transport = open("path", config);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        assertEquals("found", ((JsonRpcNotification) recorder.next(WAIT)).method());
    }

    @Test
    void aCommandThatIsNotFoundFailsAtOpen() {
        McpException e = assertThrows(McpException.class,
                () -> open("ghost", StdioServerConfig.of("definitely-not-a-command-4711", List.of("--x"))));
        assertTrue(e.getMessage().startsWith(
                "Failed to start MCP server \"ghost\": definitely-not-a-command-4711: No such file or directory"),
                e.getMessage());
    }

    @Test
    void aFileThatIsNotExecutableFailsAtOpen() throws Exception {
        Path script = Files.writeString(dir.resolve("server.sh"), "#!/bin/sh\ncat\n");
        McpException e = assertThrows(McpException.class,
                () -> open("noexec", StdioServerConfig.of(script.toString(), List.of())));
        assertEquals("Failed to start MCP server \"noexec\": " + script + ": Permission denied", e.getMessage());
    }

    @Test
    void aMissingWorkingDirectoryFailsAtOpen() {
        McpException e = assertThrows(McpException.class, () -> open("nodir", bash("cat").withCwd("no/such/dir")));
        assertTrue(e.getMessage().startsWith("Failed to start MCP server \"nodir\": bash: working directory "),
                e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void anotherConfigTypeIsRefusedWithItsName() {
        McpException e = assertThrows(McpException.class,
                () -> provider.open(TransportRequest.of("web", HttpServerConfig.of("http://127.0.0.1:1/mcp"), dir)));
        assertTrue(e.getMessage().contains("\"http\"") && e.getMessage().contains("HttpServerConfig"), e.getMessage());
    }

    @Test
    void errorMessagesNeverShowEnvValues() {
        McpException e = assertThrows(McpException.class, () -> open("secret",
                StdioServerConfig.of("definitely-not-a-command-4711", List.of())
                        .withEnv(Map.of("API_KEY", "s3cr3t-value"))));
        assertFalse(e.getMessage().contains("s3cr3t-value"), e.getMessage());
    }

    @Test
    void aChildThatDiesAtOnceClosesWithItsExitCodeAndStderr() throws Exception {
        StdioTransport transport = open("dies", bash("echo 'fatal: exit at start on purpose' >&2; exit 3"));
        Recorder recorder = new Recorder();
        long started = System.nanoTime();
        transport.start(recorder);

        TransportClosedException closed = recorder.awaitClose(WAIT);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals("process exited with code 3; stderr: fatal: exit at start on purpose", closed.reason());
        assertTrue(millis < 5_000, "closed after " + millis + " ms");
        assertEquals("stderr: fatal: exit at start on purpose", transport.diagnostics());

        ExecutionException send = assertThrows(ExecutionException.class,
                () -> transport.send(request(1, "late")).get(1, TimeUnit.SECONDS));
        TransportClosedException failure = assertInstanceOf(TransportClosedException.class, send.getCause());
        assertEquals(closed.reason(), failure.reason());
        Waits.sleep(100);
        assertEquals(1, recorder.closeCalls.get());
    }

    @Test
    void aSendAfterTheServerExitedFailsWithTheExitCodeAndStderrNotWithThePipe() throws Exception {
        // The server exits at once, but a child of it keeps its stdout open: the transport has not seen the end
        // yet when the send finds the stdin pipe closed (the JDK closes it when the process exits).
        StdioTransport transport = open("exits-early",
                bash("(exec sleep 3 2>/dev/null) & echo 'fatal: no config' >&2; exit 4"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        Waits.sleep(300);
        ExecutionException send = assertThrows(ExecutionException.class,
                () -> transport.send(request(1, "first")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        TransportClosedException failure = assertInstanceOf(TransportClosedException.class, send.getCause());
        assertEquals("process exited with code 4; stderr: fatal: no config", failure.reason());
        assertEquals(failure.reason(), recorder.awaitClose(WAIT).reason());
    }

    @Test
    void messagesWrittenBeforeExitAreDeliveredBeforeTheClose() throws Exception {
        StdioTransport transport = open("last-words",
                bash("echo '{\"jsonrpc\":\"2.0\",\"method\":\"bye\"}'; exit 0"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        TransportClosedException closed = recorder.awaitClose(WAIT);
        assertEquals("process exited with code 0", closed.reason());
        assertEquals(List.of(new JsonRpcNotification("bye", null)), List.copyOf(recorder.messages));
        assertEquals(0, recorder.messagesAfterClose.get());
    }

    @Test
    void garbageLinesAreSkippedAndCountedAndValidOnesDelivered() throws Exception {
        String script = String.join("; ",
                "echo 'npm WARN something on stdout'",
                "echo '{\"jsonrpc\":\"2.0\",\"method\":\"a\"}'",
                "printf '\\000\\377\\376{\\n'",
                "printf '{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\\r\\n'",
                "echo '{\"not\":\"json-rpc\"}'",
                "echo",
                "echo '   '",
                "printf '{\"jsonrpc\":\"2.0\",\"meth'",
                "echo",
                "echo '{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":true}}'",
                "cat");
        StdioTransport transport = open("garbage", bash(script));
        Recorder recorder = new Recorder();
        transport.start(recorder);

        List<JsonRpcMessage> got = recorder.take(3, WAIT);
        assertEquals("a", ((JsonRpcNotification) got.get(0)).method());
        assertEquals("b", ((JsonRpcNotification) got.get(1)).method());
        assertEquals(RequestId.of(7), ((mcp.api.jsonrpc.JsonRpcSuccess) got.get(2)).id());
        assertEquals(4, transport.skippedLines());
        assertTrue(transport.isOpen(), "garbage is never fatal");

        // The connection still works both ways after the garbage.
        transport.send(request(42, "still alive")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(request(42, "still alive"), recorder.next(WAIT));
    }

    @Test
    void aBrokenStdinPipeClosesTheTransport() throws Exception {
        // The server closes its stdin but keeps running: the next write fails with a broken pipe.
        StdioTransport transport = open("deaf", bash("exec 0<&-; echo ready >&2; sleep 600"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        awaitStderr(transport, "ready");

        ExecutionException write = assertThrows(ExecutionException.class,
                () -> transport.send(request(1, "anyone?")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(TransportClosedException.class, write.getCause());

        String reason = recorder.awaitClose(WAIT).reason();
        assertTrue(reason.startsWith("writing to the server's stdin failed: ") && reason.endsWith("; stderr: ready"),
                reason);
        assertFalse(alive(transport.pid()));
    }

    @Test
    void anOversizedLineClosesTheTransportWithoutBufferingIt() throws Exception {
        long limit = 1024 * 1024;
        TransportRequest request = TransportRequest.of("big",
                bash("head -c 2097152 /dev/zero | tr '\\0' a; echo; cat"), dir)
                .withCloseStepTimeout(STEP)
                .withMaxMessageBytes(limit);
        StdioTransport transport = open(request);
        Recorder recorder = new Recorder();
        transport.start(recorder);

        TransportClosedException closed = recorder.awaitClose(WAIT);
        assertEquals("message from server exceeds the limit of 1048576 bytes", closed.reason());
        assertTrue(transport.largestLineBuffer() <= limit + 1, "buffered " + transport.largestLineBuffer());
        assertTrue(recorder.messages.isEmpty());
    }

    @Test
    void aChildThatIgnoresStdinEofAndSigtermIsKilled() throws Exception {
        // An ignored signal stays ignored across exec, so neither bash nor sleep reacts to SIGTERM.
        // It answers one request first: past its handshake, it gets the graceful sequence.
        StdioTransport transport = open("stubborn", bash("trap '' TERM; read line; "
                + "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'; echo ready >&2; sleep 600; sleep 600"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        transport.send(request(1, "hello")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        recorder.take(1, WAIT);
        awaitStderr(transport, "ready");
        long pid = transport.pid();
        // "ready" comes before bash has forked the sleep: look until the tree holds it (bounded).
        long deadline = System.nanoTime() + WAIT.toNanos();
        Set<Long> descendants;
        do {
            transport.snapshotTree();
            descendants = transport.knownDescendantPids();
        } while (descendants.isEmpty() && System.nanoTime() < deadline && sleepBriefly());

        long started = System.nanoTime();
        transport.close();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertFalse(alive(pid), "server still alive");
        assertFalse(descendants.isEmpty(), "the sleep is a descendant");
        descendants.forEach(d -> assertFalse(running(d), "descendant " + d + " still running"));
        // Three steps of 300 ms, plus generous slack for a loaded machine.
        assertTrue(millis < 3 * STEP.toMillis() + 2_000, "close took " + millis + " ms");
        assertTrue(millis >= 2 * STEP.toMillis(), "SIGKILL came before SIGTERM had its chance: " + millis + " ms");
        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
    }

    @Test
    void aServerStillInItsHandshakeIsTerminatedAtOnce() throws Exception {
        // Never answers, ignores stdin EOF and SIGTERM: the graceful sequence would take two long steps.
        Duration longStep = Duration.ofSeconds(5);
        StdioTransport transport = open(TransportRequest.of("handshake",
                bash("trap '' TERM; echo ready >&2; while :; do sleep 1; done"), dir).withCloseStepTimeout(longStep));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        transport.send(request(1, "initialize?")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        awaitStderr(transport, "ready");
        long pid = transport.pid();

        long started = System.nanoTime();
        transport.close();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertFalse(alive(pid), "server still alive");
        // No wait for the end of input, none for SIGTERM: far below one step (generous for a loaded machine).
        assertTrue(millis < longStep.toMillis() / 2, "close took " + millis + " ms");
        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
    }

    @Test
    void aServerStillInItsHandshakeIsTerminatedWithItsChildren() throws Exception {
        // The one look at the tree before SIGTERM (no second one without the graceful wait) must find the child,
        // which ignores SIGTERM as the server does.
        StdioTransport transport = open(TransportRequest.of("handshake-tree", bash("(trap '' TERM; exec sleep 600) &"
                + " echo \"grandchild $!\" >&2; trap '' TERM; while :; do sleep 1; done"), dir)
                .withCloseStepTimeout(Duration.ofSeconds(5)));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        long grandchild = grandchildPid(transport);
        long pid = transport.pid();

        transport.close();

        assertFalse(alive(pid), "server still alive");
        assertTrue(notRunningWithin(grandchild, Duration.ofSeconds(5)), "the server's child outlived it");
        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
    }

    @Test
    void aServerRunsInASessionOfItsOwn() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Sessions.setsid().isPresent(), "no setsid here");
        StdioTransport transport = open("session", bash("sleep 600 & echo \"grandchild $!\" >&2; cat"));
        transport.start(new Recorder());
        long grandchild = grandchildPid(transport);
        long pid = transport.pid();
        Set<Long> members = Sessions.members(pid).stream().map(ProcessHandle::pid).collect(Collectors.toSet());
        assertEquals(Set.of(pid, grandchild), members, "the server leads its session, with its child in it");
        assertEquals(Optional.of(pid), Optional.ofNullable(sessionOf(pid)), "setsid ran the server in place");
        assertTrue(Watchdog.pid().isPresent(), "a watchdog runs while a server does");
        transport.close();
        assertTrue(eventuallyDead(grandchild), "grandchild still alive");
    }

    @Test
    void aServerKilledRightAfterStartingAChildLeavesNoChild() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Sessions.setsid().isPresent(), "no setsid here");
        // The child ignores SIGTERM and SIGHUP; the server is killed by someone else as soon as the
        // child exists, before any periodic snapshot can have seen it.
        for (int i = 0; i < 20; i++) {
            Path pidFile = dir.resolve("child-" + i);
            StdioTransport transport = open("killed-" + i, bash("(trap '' TERM HUP; exec sleep 600) >/dev/null 2>&1 & echo $! > "
                    + pidFile + "; cat"));
            Recorder recorder = new Recorder();
            transport.start(recorder);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!(Files.exists(pidFile) && Files.readString(pidFile).endsWith("\n")) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            long child = Long.parseLong(Files.readString(pidFile).trim());
            ProcessHandle.of(transport.pid()).orElseThrow().destroyForcibly();
            recorder.awaitClose(WAIT);
            // Ended, though perhaps not yet reaped: an orphan's zombie waits for init.
            assertTrue(notRunningWithin(child, Duration.ofSeconds(5)),
                    "cycle " + i + ": the child " + child + " outlived its killed server");
        }
    }

    /** The session id of a process, from /proc; null if unreadable. */
    private static Long sessionOf(long pid) throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[3]);
    }

    @Test
    void closeEndsTheWholeProcessTree() throws Exception {
        StdioTransport transport = open("tree", bash("sleep 600 & echo \"grandchild $!\" >&2; cat"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        long grandchild = grandchildPid(transport);
        long child = transport.pid();
        assertTrue(alive(grandchild));

        transport.close();

        assertFalse(alive(child), "child still alive");
        assertTrue(eventuallyDead(grandchild), "grandchild still alive");
        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
    }

    @Test
    void aChildThatExitsOnItsOwnTakesItsKnownDescendantsWithIt() throws Exception {
        // The grandchild inherits stdout, so stdout does not end with the child: the exit of the child
        // itself must close the transport, and the recorded grandchild must not be left as an orphan.
        StdioTransport transport = open("orphan", bash("sleep 600 & echo \"grandchild $!\" >&2; read line; exit 5"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        long grandchild = grandchildPid(transport);
        transport.snapshotTree();
        assertTrue(transport.knownDescendantPids().contains(grandchild), "snapshot has the grandchild");

        transport.send(request(1, "exit now")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);

        TransportClosedException closed = recorder.awaitClose(WAIT);
        assertTrue(closed.reason().startsWith("process exited with code 5; stderr: grandchild " + grandchild),
                closed.reason());
        assertTrue(eventuallyDead(grandchild), "grandchild orphaned");
    }

    @Test
    void thePeriodicSnapshotRecordsDescendantsBeforeTheChildDies() throws Exception {
        StdioTransport transport = open("periodic", bash("sleep 600 & echo \"grandchild $!\" >&2; read line; exit 0"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        long grandchild = grandchildPid(transport);
        // No snapshot is asked for here: the JVM-wide snapshot thread must record the grandchild.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5 * LiveTransports.SNAPSHOT_INTERVAL_MILLIS);
        while (!transport.knownDescendantPids().contains(grandchild) && System.nanoTime() < deadline) {
            Waits.sleep(20);
        }
        assertTrue(transport.knownDescendantPids().contains(grandchild), "never recorded");

        transport.send(request(1, "exit now"));
        assertTrue(recorder.awaitClose(WAIT).reason().startsWith("process exited with code 0"));
        assertTrue(eventuallyDead(grandchild), "grandchild orphaned");
    }

    @Test
    void killNineOfTheHostEndsEveryServerAndGrandchildWithinTwoSeconds() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Sessions.setsid().isPresent(), "no setsid here");
        List<String> command = helperJvm(KillNineMain.class);
        command.add(dir.toString());
        Process jvm = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            java.io.BufferedReader out = new java.io.BufferedReader(
                    new java.io.InputStreamReader(jvm.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("pids "), "helper JVM said: " + line);
            List<Long> pids = Pattern.compile(" ").splitAsStream(line.substring("pids ".length()))
                    .map(Long::parseLong).toList();
            // 1 + 1 + (2 grandchildren + 1) + (1 daemon + 1): every kind of server and child.
            assertEquals(7, pids.size(), line);
            pids.forEach(pid -> assertTrue(running(pid), "pid " + pid + " not running before the kill"));

            jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
            long killed = System.nanoTime();
            assertTrue(jvm.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS), "helper JVM did not die");
            for (long pid : pids) {
                long left = Duration.ofSeconds(2).toNanos() - (System.nanoTime() - killed);
                assertTrue(notRunningWithin(pid, Duration.ofNanos(Math.max(0, left))),
                        "pid " + pid + " still running 2 s after kill -9 of the host");
            }
        } finally {
            jvm.destroyForcibly();
            jvm.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** The command of a JVM running {@code main} of a test class, on this test's module or class path. */
    private static List<String> helperJvm(Class<?> main) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && StdioTransport.class.getModule().isNamed()) {
            command.addAll(List.of("--module-path", modulePath,
                    "--patch-module", "mcp.transport.stdio=" + Path.of("target", "test-classes").toAbsolutePath(),
                    "-m", "mcp.transport.stdio/" + main.getName()));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        }
        return command;
    }

    @Test
    void jvmExitEndsTheTreesOfTransportsLeftOpen() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && StdioTransport.class.getModule().isNamed()) {
            command.addAll(List.of("--module-path", modulePath,
                    "--patch-module", "mcp.transport.stdio=" + Path.of("target", "test-classes").toAbsolutePath(),
                    "-m", "mcp.transport.stdio/" + ShutdownHookMain.class.getName()));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), ShutdownHookMain.class.getName()));
        }
        Process jvm = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String line = new String(jvm.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            assertTrue(jvm.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS), "helper JVM did not exit");
            Matcher m = Pattern.compile("pids (\\d+) (\\d+)").matcher(line);
            assertTrue(m.find(), "helper JVM said: " + line);
            long child = Long.parseLong(m.group(1));
            long grandchild = Long.parseLong(m.group(2));
            // Both ignore stdin EOF: only the shutdown hook's kill ends them.
            assertTrue(eventuallyDead(child), "child survived the JVM");
            assertTrue(eventuallyDead(grandchild), "grandchild survived the JVM");
        } finally {
            jvm.destroyForcibly();
            jvm.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void closeFromInsideTheListenerNeitherDeadlocksNorRepeatsOnClose() throws Exception {
        AtomicReference<Transport> self = new AtomicReference<>();
        CountDownLatch closedInside = new CountDownLatch(1);
        Recorder recorder = new Recorder() {
            @Override
            public void onMessage(JsonRpcMessage message) {
                super.onMessage(message);
                self.get().close();
                closedInside.countDown();
            }

            @Override
            public void onClose(TransportClosedException reason) {
                super.onClose(reason);
                self.get().close(); // nested and repeated: must return at once
            }
        };
        StdioTransport transport = open("reentrant", StdioServerConfig.of("cat", List.of()));
        self.set(transport);
        transport.start(recorder);
        transport.send(request(1, "one")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        transport.send(request(2, "two"));

        assertTrue(closedInside.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "close inside onMessage hung");
        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
        transport.close();
        Waits.sleep(100);
        assertEquals(1, recorder.closeCalls.get());
        assertEquals(1, recorder.messages.size(), "no message after the close started");
    }

    @Test
    void closeFromAWriteCallbackStillEndsStdinGracefully() throws Exception {
        // Answers every line: past its handshake (one answer first), so its close is the graceful one.
        StdioTransport transport = open("callback", bash("while read -r line; do "
                + "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'; done; exit 0"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        transport.send(request(1, "hello")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        recorder.take(1, WAIT);
        // The future completes on the writer thread, so the close runs there.
        transport.send(request(2, "then close")).thenRun(transport::close);

        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
        // The server ended on stdin EOF (exit 0), not on SIGTERM (143) after a step timeout.
        assertEquals(0, transport.process().exitValue());
    }

    @Test
    void concurrentClosesAllReturnAfterTheTreeIsGone() throws Exception {
        StdioTransport transport = open("many", bash("sleep 600 & echo \"grandchild $!\" >&2; cat"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        long grandchild = grandchildPid(transport);
        long child = transport.pid();

        ExecutorService closers = Executors.newFixedThreadPool(4);
        try {
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                closes.add(CompletableFuture.runAsync(() -> {
                    transport.close();
                    // Every caller, not only the first, sees the tree gone when close returns.
                    if (alive(child)) {
                        throw new AssertionError("close returned while the child lives");
                    }
                }, closers));
            }
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            closers.shutdownNow();
        }
        assertTrue(eventuallyDead(grandchild));
        Waits.sleep(100);
        assertEquals(1, recorder.closeCalls.get());
    }

    @Test
    void closeBeforeStartStillReportsTheCloseOnce() throws Exception {
        StdioTransport transport = open("early", StdioServerConfig.of("cat", List.of()));
        transport.close();
        Recorder recorder = new Recorder();
        transport.start(recorder);
        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
        assertThrows(IllegalStateException.class, () -> transport.start(new Recorder()));
        Waits.sleep(100);
        assertEquals(1, recorder.closeCalls.get());
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheReader() throws Exception {
        Recorder recorder = new Recorder() {
            @Override
            public void onMessage(JsonRpcMessage message) {
                super.onMessage(message);
                throw new IllegalStateException("listener bug");
            }
        };
        StdioTransport transport = open("buggy", StdioServerConfig.of("cat", List.of()));
        transport.start(recorder);
        transport.send(request(1, "a"));
        transport.send(request(2, "b"));
        assertEquals(2, recorder.take(2, WAIT).size());
        assertTrue(transport.isOpen());
    }

    @Test
    void aListenerThatBlocksDoesNotHoldUpTheMessagesAfterIt() throws Exception {
        // Message 1's delivery waits for message 2's: only a new reading thread can deliver that one.
        // Later, every 25th delivery sleeps past the watchdog's tick. All arrive, once, starting in order.
        int total = 200;
        CountDownLatch secondDelivered = new CountDownLatch(1);
        CompletableFuture<Boolean> firstSawSecond = new CompletableFuture<>();
        List<Long> entered = java.util.Collections.synchronizedList(new ArrayList<>());
        Set<Thread> delivering = concurrentSet();
        Recorder recorder = new Recorder() {
            @Override
            public void onMessage(JsonRpcMessage message) {
                long id = ((RequestId.NumberId) ((JsonRpcRequest) message).id()).value();
                entered.add(id);
                delivering.add(Thread.currentThread());
                if (id == 1) {
                    try {
                        firstSawSecond.complete(secondDelivered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
                    } catch (InterruptedException e) {
                        firstSawSecond.completeExceptionally(e);
                    }
                } else if (id == 2) {
                    secondDelivered.countDown();
                } else if (id % 25 == 0) {
                    Waits.sleep(3 * DeliveryWatchdog.TICK_MILLIS);
                }
                super.onMessage(message);
            }
        };
        StdioTransport transport = open("blocking", StdioServerConfig.of("cat", List.of()));
        assertTrue(transport.listenerMayBlock());
        transport.start(recorder);
        for (int i = 1; i <= total; i++) {
            transport.send(request(i, "m" + i));
        }

        List<JsonRpcMessage> received = recorder.take(total, WAIT);
        assertTrue(firstSawSecond.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "message 2 was held up behind message 1");
        assertEquals(total, new HashSet<>(received).size());
        assertEquals(java.util.stream.LongStream.rangeClosed(1, total).boxed().toList(), entered,
                "deliveries start in stream order");
        assertTrue(delivering.size() >= 2, "a new reading thread took over: " + delivering);
        assertTrue(transport.isOpen());
        // The threads left behind end once their delivery returns: one reads on.
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (readingThreads("blocking") > 1 && System.nanoTime() < deadline) {
            Waits.sleep(10);
        }
        assertEquals(1, readingThreads("blocking"), "threads reading stdout");
        transport.send(request(total + 1, "after"));
        assertEquals(total + 1, ((RequestId.NumberId) ((JsonRpcRequest) recorder.next(WAIT)).id()).value());
    }

    @Test
    void aListenerThatSaysItWillBlockHasTheReadingMoveOnAtOnce() throws Exception {
        CompletableFuture<String> seen = new CompletableFuture<>();
        AtomicReference<StdioTransport> self = new AtomicReference<>();
        Recorder recorder = new Recorder() {
            @Override
            public void onMessage(JsonRpcMessage message) {
                super.onMessage(message);
                if (seen.isDone()) {
                    return;
                }
                StdioTransport transport = self.get();
                Thread before = transport.readingThread();
                transport.listenerBlocking();
                Thread after = transport.readingThread();
                // Synchronous: the new thread is there when the call returns, long before a watchdog tick.
                seen.complete((before == Thread.currentThread()) + " " + (after != Thread.currentThread()));
            }
        };
        StdioTransport transport = open("hint", StdioServerConfig.of("cat", List.of()));
        self.set(transport);
        transport.start(recorder);
        // From a thread that is not delivering, the hint does nothing.
        transport.listenerBlocking();
        transport.send(request(1, "one"));
        assertEquals("true true", seen.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        transport.send(request(2, "two"));
        assertEquals(2, recorder.take(2, WAIT).size());
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (readingThreads("hint") > 1 && System.nanoTime() < deadline) {
            Waits.sleep(10);
        }
        assertEquals(1, readingThreads("hint"));
    }

    private static long readingThreads(String server) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("mcp-stdio-" + server + "-stdout")).count();
    }

    @Test
    void aDeliveryStuckForeverDelaysTheCloseOnlyByOneStep() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch stuck = new CountDownLatch(1);
        Recorder recorder = new Recorder() {
            @Override
            public void onMessage(JsonRpcMessage message) {
                super.onMessage(message);
                stuck.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        StdioTransport transport = open("stuck", StdioServerConfig.of("cat", List.of()));
        transport.start(recorder);
        try {
            transport.send(request(1, "blocks"));
            assertTrue(stuck.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            // Reading has moved on to another thread (the next message arrives), the stuck one still waits.
            transport.send(request(2, "next"));
            recorder.take(2, WAIT);

            long start = System.nanoTime();
            transport.close();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
            assertFalse(ProcessHandle.of(transport.pid()).map(ProcessHandle::isAlive).orElse(false));
            // One step waiting for the stuck deliveries (both block), then cat ends on stdin EOF; a bound
            // that catches a close waiting for the listener, not a slow machine.
            assertTrue(tookMillis < 4 * STEP.toMillis() + 1_000, "close took " + tookMillis + " ms");
        } finally {
            release.countDown();
        }
        assertEquals(1, recorder.closeCalls.get());
        assertEquals(0, recorder.messagesAfterClose.get());
    }

    @Test
    void stderrIsDrainedSoAChattyServerNeverBlocks() throws Exception {
        // 1.4 MB on stderr would fill the pipe many times over if nobody read it.
        StdioTransport transport = open("chatty", bash(
                "for i in $(seq 1 20000); do echo \"log line $i padding padding padding padding padding padding padding\" >&2; done; "
                        + "echo '{\"jsonrpc\":\"2.0\",\"method\":\"done\"}'; cat"));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        assertEquals("done", ((JsonRpcNotification) recorder.next(Duration.ofSeconds(30))).method());
        String diagnostics = transport.diagnostics();
        awaitStderr(transport, "log line 20000 ");
        diagnostics = transport.diagnostics();
        assertTrue(diagnostics.endsWith("log line 20000 padding padding padding padding padding padding padding"),
                diagnostics.substring(Math.max(0, diagnostics.length() - 200)));
        assertTrue(diagnostics.length() <= "stderr: ".length() + 16 * 1024, "tail is bounded");
    }

    // ---- helpers ----

    private static final Pattern GRANDCHILD = Pattern.compile("grandchild (\\d+)");

    private static long grandchildPid(StdioTransport transport) {
        Matcher m = GRANDCHILD.matcher(awaitStderr(transport, "grandchild "));
        if (!m.find()) {
            fail("no grandchild pid in " + transport.diagnostics());
        }
        return Long.parseLong(m.group(1));
    }

    private static String awaitStderr(StdioTransport transport, String text) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String diagnostics = transport.diagnostics();
            if (diagnostics.contains(text)) {
                return diagnostics;
            }
            Waits.sleep(10);
        }
        throw new AssertionError("stderr never showed \"" + text + "\": " + transport.diagnostics());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Killed, though perhaps not yet reaped (an orphan's zombie waits for init). */
    private static boolean running(long pid) {
        return ProcessHandle.of(pid).map(ProcessTree::isRunning).orElse(false);
    }

    /** Whether the process has ended (a zombie counts as ended) within the bound. */
    private static boolean notRunningWithin(long pid, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (running(pid)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Waits.sleep(10);
        }
        return true;
    }

    /** An orphaned process is reaped by init, not by us: allow it a moment to disappear. */
    private static boolean eventuallyDead(long pid) {
        assertFalse(running(pid), "pid " + pid + " was not ended");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (!alive(pid)) {
                return true;
            }
            Waits.sleep(10);
        }
        return false;
    }

    /** Sleeps 10 ms; always true, for use in a loop condition. */
    private static boolean sleepBriefly() throws InterruptedException {
        Thread.sleep(10);
        return true;
    }
}
