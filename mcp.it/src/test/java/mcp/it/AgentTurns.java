package mcp.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.JsonNode;

/**
 * What the tests that run the pinned agents ({@code interop/agents}) for one turn against the recording model endpoint
 * share: the check that they can run here (installed, and offline in a network namespace of their own), their
 * environment, the command of a turn, the tools a turn offered, and the check that no process of a scratch home is
 * left.
 */
final class AgentTurns {

    static final Path AGENTS = EraPeer.INTEROP.resolve("agents");
    static final Path AGENT_BIN = AGENTS.resolve("node_modules/.bin");

    /** How each agent names the tools of the server it knows as {@code mcp-host}, before the gateway's name. */
    static final Map<String, String> PREFIX = Map.of(
            "claude", "mcp__mcp-host__",
            "codex", "mcp__mcp_host__",
            "gemini", "mcp_mcp-host_");

    /** The command that makes a network namespace (where only 127.0.0.1 exists), and node. */
    record Runtime(List<String> netns, Path node) {
    }

    private AgentTurns() {
    }

    /**
     * Skips the calling test, with the reason, unless the agents' CLIs are installed, node and ip are there and a
     * network namespace can be made.
     *
     * @return what a turn needs
     */
    static Runtime assumeAgentsCanRun() {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "the process checks read /proc (Linux)");
        List<String> missing = Stream.of("claude", "codex", "gemini")
                .filter(agent -> !Files.isExecutable(AGENT_BIN.resolve(agent))).toList();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "the agents' CLIs " + missing + " are not installed in "
                + AGENT_BIN + " (interop/install.sh interop/agents, run by the build before the tests: "
                + installLog() + ")");
        Path node = onPath("node");
        Assumptions.assumeTrue(node != null, "node is not on the PATH");
        Assumptions.assumeTrue(onPath("ip") != null || Files.isExecutable(Path.of("/usr/sbin/ip"))
                || Files.isExecutable(Path.of("/sbin/ip")), "ip (iproute2) is needed to bring up 127.0.0.1 in the "
                + "agent's network namespace");
        List<String> netns = null;
        for (List<String> candidate : List.of(List.of("unshare", "--net", "--map-root-user"),
                List.of("unshare", "--net"))) {
            if (succeeds(candidate)) {
                netns = candidate;
                break;
            }
        }
        Assumptions.assumeTrue(netns != null, "an agent turn runs offline in a network namespace of its own, and "
                + "`unshare --net` is not permitted here (enable unprivileged user namespaces, or run as root)");
        return new Runtime(netns, node);
    }

    /**
     * One turn of an agent against the recording model endpoint ({@code agent-model.sh}), in a network namespace.
     *
     * @param runtime what {@link #assumeAgentsCanRun} gave
     * @param log the recorder's log
     * @param directory where the agent runs
     * @param env the agent's whole environment ({@code @MODEL@} stands for the endpoint)
     * @param turn the agent's command line
     * @param home the scratch home
     * @return how the turn ended
     */
    static Cli.Run turn(Runtime runtime, Path log, Path directory, Map<String, String> env, List<String> turn,
            Path home) {
        List<String> command = new ArrayList<>(runtime.netns());
        command.addAll(List.of(AGENTS.resolve("agent-model.sh").toString(), log.toString(), "-",
                directory.toString()));
        env.forEach((name, value) -> command.add(name + "=" + value));
        command.add("--");
        command.addAll(turn);
        Path output = log.resolveSibling(log.getFileName() + ".agent-output");
        Cli.Run ran = Cli.exec(command, home, directory, Map.of("AGENT_OUTPUT", output.toString()));
        // The script's own exit says little (it ends 0 however the agent ended): what the agent printed is what tells
        // why a turn went wrong.
        String printed;
        try {
            printed = Files.isRegularFile(output) ? Files.readString(output) : "nothing";
        } catch (IOException e) {
            printed = "unreadable: " + e;
        }
        return new Cli.Run(ran.exitCode(), ran.out(), ran.err() + "\n--- the agent printed:\n" + printed);
    }

    /**
     * The command line of one turn of an agent, {@code @MODEL@} standing for the recording endpoint: headless, one
     * prompt. Gemini CLI gets {@code --yolo}: in headless mode it offers only the tools it may run without asking.
     */
    static List<String> command(String agent) {
        return switch (agent) {
            case "claude" -> List.of("claude", "-p", "Use your tools.");
            case "codex" -> List.of("codex", "exec", "--skip-git-repo-check", "-c", "model_provider=fixture", "-c",
                    "model_providers.fixture={name=\"fixture\",base_url=\"@MODEL@/v1\",wire_api=\"responses\","
                            + "request_max_retries=0,stream_max_retries=0}", "-m", "fixture-model", "Use your tools.");
            case "gemini" -> List.of("gemini", "-m", "gemini-2.5-pro", "--yolo", "-p", "Use your tools.");
            default -> throw new IllegalArgumentException(agent);
        };
    }

    /** The MCP tools of one model request, as the recorder wrote them down: Claude Code's deferred ones too. */
    static Set<String> offered(JsonNode record) {
        Set<String> names = new TreeSet<>();
        record.path("tools").forEach(name -> names.add(name.asString()));
        record.path("deferred").forEach(name -> names.add(name.asString()));
        return names;
    }

    /** The XDG base directories, in the scratch home: none of the machine's. */
    static Map<String, String> xdg(Path home) throws IOException {
        Map<String, String> xdg = new LinkedHashMap<>();
        xdg.put("XDG_CONFIG_HOME", Files.createDirectories(home.resolve(".config")).toString());
        xdg.put("XDG_CACHE_HOME", Files.createDirectories(home.resolve(".cache")).toString());
        xdg.put("XDG_STATE_HOME", Files.createDirectories(home.resolve(".local/state")).toString());
        xdg.put("XDG_DATA_HOME", Files.createDirectories(home.resolve(".local/share")).toString());
        return xdg;
    }

    static Map<String, String> withHome(Path home, Map<String, String> xdg) {
        Map<String, String> env = new LinkedHashMap<>(xdg);
        env.put("HOME", home.toString());
        return env;
    }

    /** All an agent's environment ({@code agent-model.sh} starts it with nothing else): offline, no updates. */
    static Map<String, String> agentEnvironment(Runtime runtime, Path home, Map<String, String> xdg) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", AGENT_BIN + ":" + runtime.node().getParent() + ":/usr/bin:/bin");
        env.putAll(withHome(home, xdg));
        env.put("USER", "agent");
        env.put("LANG", "C.UTF-8");
        env.put("DISABLE_AUTOUPDATER", "1");
        env.put("DISABLE_TELEMETRY", "1");
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        // Claude Code's wait for its servers' connect (ms): on a machine busy with a build the gateway's JVM and
        // its first answer can take longer than Claude Code's default.
        env.put("MCP_TIMEOUT", "60000");
        // Claude Code in `-p` sends its first model request when its own start is done, its servers connected or not,
        // unless told to wait for them (bounded by MCP_TIMEOUT): a script that needs the tools in its one turn sets
        // this, as docs/serve.md says. A first start of the gateway (two JVMs) takes longer than Claude Code's own
        // start on a busy machine.
        env.put("MCP_CONNECTION_NONBLOCKING", "0");
        env.put("ANTHROPIC_BASE_URL", "@MODEL@");
        env.put("ANTHROPIC_API_KEY", "sk-ant-fixture");
        env.put("GOOGLE_GEMINI_BASE_URL", "@MODEL@");
        env.put("GEMINI_API_KEY", "fixture");
        return env;
    }

    /**
     * Waits (15 s at most) until none of the noted processes is alive and no process runs with this home: what the
     * agents started, the gateway and its servers.
     */
    static void assertNothingLeft(Set<Long> noted, Path home) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            List<Long> alive = noted.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive)
                    .orElse(false)).toList();
            List<String> withHome = withThisHome(home);
            if (alive.isEmpty() && withHome.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("processes outlived the agents: " + alive + " " + withHome);
            }
            Thread.sleep(100);
        }
    }

    /**
     * Ends (SIGKILL) every process that runs with this scratch home: after a failed test, what the agents started
     * and a gateway that would otherwise wait out its idle time.
     */
    static void killAll(Path home) {
        for (String process : withThisHome(home)) {
            ProcessHandle.of(Long.parseLong(process.substring(0, process.indexOf(' ')))).ifPresent(
                    ProcessHandle::destroyForcibly);
        }
    }

    /** The processes whose environment says HOME is this home, as "pid command line". */
    private static List<String> withThisHome(Path home) {
        // One NUL-terminated entry of the environment, whole: "\0HOME=<home>\0" in the environment after a NUL.
        byte[] wanted = ("\0HOME=" + home + "\0").getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : entries.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    byte[] environ = concat(new byte[] {0}, Files.readAllBytes(entry.resolve("environ")));
                    if (contains(environ, wanted)) {
                        String cmdline = new String(Files.readAllBytes(entry.resolve("cmdline")), StandardCharsets.UTF_8)
                                .replace('\0', ' ').strip();
                        found.add(entry.getFileName() + " " + cmdline);
                    }
                } catch (IOException | SecurityException e) {
                    // Gone meanwhile, or another user's: neither is ours.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        return null;
    }

    private static boolean succeeds(List<String> command) {
        List<String> full = new ArrayList<>(command);
        full.add("true");
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return false;
            }
            return process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String installLog() {
        Path log = Path.of(System.getProperty("mcp.agents.install.log", "target/agents-install.log"));
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "no log at " + log;
        }
    }
}
