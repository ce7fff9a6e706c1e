package mcp.transport.stdio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import mcp.api.McpException;
import mcp.api.Sandbox;
import mcp.api.StdioServerConfig;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stdio transport running servers under bubblewrap: each rule of a {@link Sandbox} holds against a real child
 * process that tries to break it, the same attempt succeeds without the rule (so each check can fail), and the whole
 * tree under bubblewrap ends on close and when the host is killed. Skipped only where bubblewrap is not installed;
 * CI installs it.
 */
class SandboxTransportTest {

    private static final Duration STEP = Duration.ofMillis(300);
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final StdioTransportProvider provider = new StdioTransportProvider();
    private final List<Transport> opened = new ArrayList<>();

    @TempDir
    Path dir;

    @BeforeAll
    static void bubblewrapIsInstalled() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")) || onPath("bwrap"),
                "bubblewrap (bwrap) is not installed; .ci/run installs it");
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null && java.util.Arrays.stream(path.split(":"))
                .anyMatch(entry -> !entry.isEmpty() && Files.isExecutable(Path.of(entry, program)));
    }

    @AfterEach
    void noChildProcessRemains() {
        opened.forEach(Transport::close);
        List<ProcessHandle> left = List.of();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < deadline) {
            left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
            if (left.isEmpty()) {
                break;
            }
            Waits.sleep(20);
        }
        assertEquals(List.of(), left.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList(),
                "child processes left behind");
    }

    private StdioTransport open(String name, StdioServerConfig config) {
        StdioTransport transport = (StdioTransport) provider.open(TransportRequest.of(name, config, dir)
                .withCloseStepTimeout(STEP));
        opened.add(transport);
        return transport;
    }

    private static Sandbox sandbox(List<String> allowWrite, List<String> denyRead, List<String> denyWrite,
            Sandbox.Network network) {
        return new Sandbox(new Sandbox.Filesystem(allowWrite, denyRead, denyWrite), network);
    }

    /**
     * Runs a bash script that reports each check as a notification {@code check} with {@code name} and
     * {@code outcome}, then waits for stdin to end; returns the outcomes by name.
     */
    private Map<String, String> run(String name, Optional<Sandbox> sandbox, int checks, String script)
            throws Exception {
        return run(name, sandbox, Map.of(), checks, script);
    }

    private Map<String, String> run(String name, Optional<Sandbox> sandbox, Map<String, String> env, int checks,
            String script) throws Exception {
        String report = "report() { printf '{\"jsonrpc\":\"2.0\",\"method\":\"check\",\"params\":{\"name\":\"%s\","
                + "\"outcome\":\"%s\"}}\\n' \"$1\" \"$2\"; }; ";
        StdioServerConfig config = StdioServerConfig.of("bash", List.of("-c", report + script + "\ncat >/dev/null"))
                .withEnv(env).withSandbox(sandbox);
        StdioTransport transport = open(name, config);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        Map<String, String> outcomes = new LinkedHashMap<>();
        for (JsonRpcMessage message : recorder.take(checks, WAIT)) {
            JsonRpcNotification check = (JsonRpcNotification) message;
            outcomes.put(check.params().get("name").asString(), check.params().get("outcome").asString());
        }
        transport.close();
        return outcomes;
    }

    /** A shell test: {@code ok} when the command succeeds, else {@code refused}. */
    private static String attempt(String check, String command) {
        return "if " + command + " 2>/dev/null; then report " + check + " ok; else report " + check + " refused; fi; ";
    }

    @Test
    void writesOutsideTheAllowedPathsAreRefusedAndInsideThemWork() throws Exception {
        Path project = Files.createDirectory(dir.resolve("project"));
        Path outside = Files.createDirectory(dir.resolve("outside"));
        String script = attempt("inside", "echo data > project/made")
                + attempt("outside", "echo data > outside/made")
                + attempt("tmp", "echo data > \"$TMPDIR/made\"")
                + attempt("etc", "touch /etc/mcp-host-sandbox-test");

        Map<String, String> sandboxed = run("writes", Optional.of(sandbox(List.of("project"), List.of(), List.of(),
                Sandbox.Network.NONE)), 4, script);

        assertEquals(Map.of("inside", "ok", "outside", "refused", "tmp", "ok", "etc", "refused"), sandboxed);
        assertEquals("data\n", Files.readString(project.resolve("made")));
        assertFalse(Files.exists(outside.resolve("made")));
        assertFalse(Files.exists(Path.of("/etc/mcp-host-sandbox-test")));
        // The same attempt without a sandbox succeeds: the refusal is the sandbox's doing.
        assertEquals("ok", run("writes-free", Optional.empty(), 1, attempt("outside", "echo data > outside/made"))
                .get("outside"));
        assertTrue(Files.exists(outside.resolve("made")));
    }

    @Test
    void theServersPrivateTemporaryDirectoryIsRemovedWhenItEnds() throws Exception {
        List<Path> before = sandboxTemporaryDirectories();
        Map<String, String> outcome = run("tmp", Optional.of(Sandbox.DEFAULT), 1,
                "if [ -d \"$TMPDIR\" ] && echo x > \"$TMPDIR/f\"; then report tmp ok; else report tmp refused; fi");
        assertEquals("ok", outcome.get("tmp"));
        List<Path> after = sandboxTemporaryDirectories();
        // Stale ones of killed hosts may have been swept meanwhile; none may have been added.
        assertTrue(before.containsAll(after), "a private temporary directory was left behind: " + after);
    }

    private static List<Path> sandboxTemporaryDirectories() throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of(System.getProperty("java.io.tmpdir")),
                "mcp-host-sandbox-*")) {
            List<Path> found = new ArrayList<>();
            entries.forEach(found::add);
            found.sort(null);
            return found;
        }
    }

    @Test
    void deniedReadsAreRefusedAndOtherFilesStayReadable() throws Exception {
        Path secrets = Files.createDirectory(dir.resolve("secrets"));
        Files.writeString(secrets.resolve("key"), "top-secret-dir");
        Files.writeString(dir.resolve("token"), "top-secret-file");
        Files.writeString(dir.resolve("public"), "hello");
        String script = attempt("dir", "grep -q top-secret-dir secrets/key")
                + attempt("file", "grep -q top-secret-file token")
                + attempt("listing", "ls secrets | grep -q key")
                + attempt("public", "grep -q hello public");

        Map<String, String> sandboxed = run("reads", Optional.of(sandbox(List.of(), List.of("secrets", "./token"),
                List.of(), Sandbox.Network.NONE)), 4, script);

        assertEquals(Map.of("dir", "refused", "file", "refused", "listing", "refused", "public", "ok"), sandboxed);
        assertEquals(Map.of("dir", "ok", "file", "ok", "listing", "ok", "public", "ok"),
                run("reads-free", Optional.of(Sandbox.DEFAULT), 4, script), "without denyRead every read works");
    }

    @Test
    void aDeniedDirectoryKeepsTheWritablePathsBeneathIt() throws Exception {
        // VS Code's runtime keeps an allowWrite path writable inside a denyRead directory; so does mcp-host.
        Path home = Files.createDirectory(dir.resolve("home"));
        Path project = Files.createDirectory(home.resolve("project"));
        Files.writeString(home.resolve("private"), "top-secret");
        String script = attempt("write", "echo data > home/project/made")
                + attempt("read", "grep -q top-secret home/private");

        Map<String, String> sandboxed = run("nested", Optional.of(sandbox(List.of("home/project"), List.of("home"),
                List.of(), Sandbox.Network.NONE)), 2, script);

        assertEquals(Map.of("write", "ok", "read", "refused"), sandboxed);
        assertEquals("data\n", Files.readString(project.resolve("made")));
    }

    @Test
    void deniedWritesInsideAnAllowedPathAreRefusedAndLeaveNoMountPointBehind() throws Exception {
        Path project = Files.createDirectory(dir.resolve("project"));
        Path hooks = Files.createDirectories(project.resolve(".git/hooks"));
        Files.writeString(project.resolve("settings.json"), "{}");
        String script = attempt("existing", "echo evil > project/settings.json")
                + attempt("hook", "echo evil > project/.git/hooks/pre-commit")
                + attempt("missing", "echo evil > project/.env")
                + attempt("other", "echo fine > project/notes");

        Map<String, String> sandboxed = run("deny-write", Optional.of(sandbox(List.of("project"), List.of(),
                List.of("project/settings.json", "project/.git/hooks", "project/.env"), Sandbox.Network.NONE)), 4,
                script);

        assertEquals(Map.of("existing", "refused", "hook", "refused", "missing", "refused", "other", "ok"), sandboxed);
        assertEquals("{}", Files.readString(project.resolve("settings.json")));
        assertFalse(Files.exists(hooks.resolve("pre-commit")));
        assertFalse(Files.exists(project.resolve(".env")), "the mount point of a missing path was left behind");
        assertEquals("fine\n", Files.readString(project.resolve("notes")));
    }

    @Test
    void networkConnectionsAreRefusedUnlessTheWholeNetworkIsGranted() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!listener.isClosed()) {
                    try (Socket ignored = listener.accept()) {
                        // accepted: the connection is the proof
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "sandbox-test-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            String script = attempt("connect", "exec 3<>/dev/tcp/127.0.0.1/" + listener.getLocalPort());

            assertEquals("refused", run("net", Optional.of(Sandbox.DEFAULT), 1, script).get("connect"));
            assertEquals("ok", run("net-any", Optional.of(sandbox(List.of(), List.of(), List.of(),
                    Sandbox.Network.ANY)), 1, script).get("connect"), "with the whole network granted it connects");
        }
    }

    @Test
    void withoutNetworkTheSessionsUnixSocketsAreHiddenToo() throws Exception {
        // A network namespace does not stop a connect() to a socket file; the runtime directory is hidden instead.
        Path runtime = Files.createDirectory(dir.resolve("runtime"));
        Path socket = runtime.resolve("bus");
        try (java.nio.channels.ServerSocketChannel bus = java.nio.channels.ServerSocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            bus.bind(java.net.UnixDomainSocketAddress.of(socket));
            String script = attempt("unix", "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX);"
                    + " s.connect(sys.argv[1])' " + socket);
            Map<String, String> env = Map.of("XDG_RUNTIME_DIR", runtime.toString());

            assertEquals("refused", run("unix", Optional.of(Sandbox.DEFAULT), env, 1, script).get("unix"));
            assertEquals("ok", run("unix-any", Optional.of(sandbox(List.of(), List.of(), List.of(),
                    Sandbox.Network.ANY)), env, 1, script).get("unix"), "with the network granted it is reachable");
        }
    }

    @Test
    void particularDomainsAreRefusedAtOpenAndNothingStarts() {
        StdioServerConfig config = StdioServerConfig.of("bash", List.of("-c", "cat"))
                .withSandbox(Optional.of(sandbox(List.of(), List.of(), List.of(),
                        new Sandbox.Network(List.of("api.example.com"), List.of()))));

        McpException e = assertThrows(McpException.class, () -> open("domains", config));

        assertTrue(e.getMessage().startsWith("MCP server \"domains\" must run in a sandbox, and none can be had: "
                + "network.allowedDomains [api.example.com] cannot be enforced"), e.getMessage());
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList());
    }

    @Test
    void aMissingBubblewrapIsRefusedAtOpenAndTheServerNeverRunsWithoutIt() throws Exception {
        Path marker = dir.resolve("ran");
        StdioServerConfig config = StdioServerConfig.of("bash", List.of("-c", "touch " + marker + "; cat"))
                .withSandbox(Optional.of(Sandbox.DEFAULT.withBubblewrap(dir.resolve("no-such-bwrap").toString())));

        McpException e = assertThrows(McpException.class, () -> open("no-bwrap", config));

        assertTrue(e.getMessage().contains("must run in a sandbox, and none can be had: bubblewrap "
                + dir.resolve("no-such-bwrap") + " does not exist"), e.getMessage());
        Waits.sleep(200);
        assertFalse(Files.exists(marker), "the server ran without its sandbox");
    }

    @Test
    void closeEndsEverythingUnderBubblewrapEvenWhatIgnoresSigterm() throws Exception {
        String marker = "mcp-sandbox-" + UUID.randomUUID();
        StdioServerConfig config = StdioServerConfig.of("bash", List.of("-c",
                "(trap '' TERM HUP; exec -a " + marker + " sleep 600) & trap '' TERM; echo started >&2; cat"))
                .withSandbox(Optional.of(Sandbox.DEFAULT));
        StdioTransport transport = open("tree", config);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        assertTrue(eventually(() -> !processesNamed(marker).isEmpty()), "the grandchild never started");

        transport.close();

        assertEquals("closed by client", recorder.awaitClose(WAIT).reason());
        assertTrue(eventually(() -> processesNamed(marker).isEmpty()), "left running: " + processesNamed(marker));
    }

    @Test
    void theNextHostRemovesWhatAKilledHostLeftInTheTemporaryFolder() throws Exception {
        // A pid that no process has: a host that is gone.
        long gone = Long.MAX_VALUE;
        Path stale = Files.createDirectory(Path.of(System.getProperty("java.io.tmpdir"))
                .resolve(Bubblewrap.TEMPORARY_PREFIX + gone + "-test"));
        Files.writeString(stale.resolve("left"), "x");
        java.lang.reflect.Field swept = Bubblewrap.class.getDeclaredField("SWEPT");
        swept.setAccessible(true);
        ((java.util.concurrent.atomic.AtomicBoolean) swept.get(null)).set(false);

        run("sweep", Optional.of(Sandbox.DEFAULT), 1, "report sweep ok");

        assertFalse(Files.exists(stale), "the directory of a host that is gone is still there");
    }

    @Test
    void killNineOfTheHostEndsEverythingUnderBubblewrap() throws Exception {
        String marker = "mcp-sandbox-" + UUID.randomUUID();
        List<String> command = helperJvm(SandboxKillNineMain.class);
        command.add(dir.toString());
        command.add(marker);
        Process jvm = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("started", out.readLine());
            assertTrue(eventually(() -> processesNamed(marker).size() == 2), "not both started: "
                    + processesNamed(marker));

            jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
            assertTrue(jvm.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS), "helper JVM did not die");

            assertTrue(eventually(() -> processesNamed(marker).isEmpty()), "left running after kill -9 of the host: "
                    + processesNamed(marker));
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

    /**
     * The pids of running processes whose name ({@code argv[0]}, set with {@code exec -a}) starts with the marker,
     * read from the host's {@code /proc}: pids inside the sandbox mean nothing out here.
     */
    private static List<Long> processesNamed(String marker) {
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path entry : entries) {
                try {
                    byte[] cmdline = Files.readAllBytes(entry.resolve("cmdline"));
                    String stat = Files.readString(entry.resolve("stat"));
                    boolean zombie = stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
                    if (!zombie && new String(cmdline, StandardCharsets.UTF_8).startsWith(marker)) {
                        found.add(Long.parseLong(entry.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return found;
    }

    private static boolean eventually(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Waits.sleep(50);
        }
        return condition.getAsBoolean();
    }
}
