package mcp.cli.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.internal.Secrets;
import mcp.config.AgentConnection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How {@code connect} writes an agent's file: through the agent's own CLI where it has one that can write the
 * gateway's entry as it is (Claude Code's {@code claude mcp add-json} and {@code remove}, Gemini CLI's {@code gemini
 * mcp add} and {@code remove}), so that the file gets the agent's own format rules; otherwise directly.
 *
 * <p>The CLI runs bounded in time, with no stdin, its output captured and never shown whole (a CLI's message may
 * quote a file that holds secrets). What it did is checked by reading the file: the gateway's entry alone, as
 * planned. When a step fails, times out, or leaves something else, every file the CLI writes is given back its
 * bytes from before, and connect writes the file directly instead.
 */
final class AgentCli {

    /** The bound of one run of the agent's CLI, unless {@code MCP_HOST_CONNECT_CLI_TIMEOUT} (seconds) says. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int KEPT_OUTPUT = 16 * 1024;
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

    /** How connect writes one agent's file. */
    sealed interface Route permits Through, Direct {
    }

    /**
     * Through the agent's CLI.
     *
     * @param agent the agent
     * @param executable the CLI found on the PATH
     * @param scope its {@code --scope}: {@code user} or {@code project}
     * @param add the arguments that add the gateway's entry
     * @param removals the arguments that remove each moved entry
     * @param touched every file the CLI may write in doing so: the agent's file first
     */
    record Through(String agent, Path executable, String scope, List<String> add, List<List<String>> removals,
            List<Path> touched) implements Route {
        Through {
            add = List.copyOf(add);
            removals = removals.stream().map(List::copyOf).toList();
            touched = List.copyOf(touched);
        }

        /** The commands, as a person would type them. */
        List<String> commandLines() {
            List<String> lines = new ArrayList<>();
            lines.add(line(agent, add));
            removals.forEach(removal -> lines.add(line(agent, removal)));
            return lines;
        }
    }

    /**
     * Directly, by {@code connect} itself.
     *
     * @param why why not through the agent's CLI
     */
    record Direct(String why) implements Route {
    }

    private AgentCli() {
    }

    /**
     * @param plan what connect does
     * @param project the project's file
     * @param env the environment the CLI would run with
     * @param home the user's home
     * @return the agent's CLI and its commands, or why the file is written directly
     */
    static Route route(AgentConnection.Plan plan, boolean project, Map<String, String> env, Path home) {
        String agent = plan.agent();
        String scope = project ? "project" : "user";
        List<String> gateway = plan.command();
        List<String> add;
        List<Path> touched = new ArrayList<>(List.of(plan.file()));
        Path cliFile;
        switch (agent) {
            case "claude" -> {
                ObjectNode entry = McpJson.object().put("type", "stdio").put("command", gateway.get(0));
                gateway.subList(1, gateway.size()).forEach(entry.putArray("args")::add);
                add = List.of("mcp", "add-json", "--scope", scope, AgentConnection.GATEWAY, entry.toString());
                // Claude Code keeps its own state in its global file and writes it at every run, a project's too.
                Path global = Optional.ofNullable(env.get("CLAUDE_CONFIG_DIR")).filter(dir -> !dir.isBlank())
                        .map(Path::of).orElse(home).resolve(".claude.json");
                cliFile = project ? plan.file() : global;
                if (!touched.contains(global)) {
                    touched.add(global);
                }
            }
            case "gemini" -> {
                add = new ArrayList<>(List.of("mcp", "add", "--scope", scope, AgentConnection.GATEWAY));
                add.addAll(gateway);
                cliFile = project ? plan.file() : Optional.ofNullable(env.get("GEMINI_CLI_HOME"))
                        .filter(dir -> !dir.isBlank()).map(Path::of).orElse(home).resolve(".gemini/settings.json");
            }
            case "codex" -> {
                return new Direct("codex mcp add cannot write the env_vars that the gateway's entry needs");
            }
            default -> {
                return new Direct(agent + " has no CLI that writes its MCP servers");
            }
        }
        if (!cliFile.toAbsolutePath().normalize().equals(plan.file().toAbsolutePath().normalize())) {
            return new Direct(agent + "'s CLI would write " + cliFile + " (its variables say so), not " + plan.file());
        }
        for (String name : plan.moved().keySet()) {
            if (name.startsWith("-")) {
                return new Direct("the server name " + name + " would be read as an option by " + agent + "'s CLI");
            }
        }
        Optional<Path> executable = onPath(agent, env);
        if (executable.isEmpty()) {
            return new Direct(agent + " is not on the PATH");
        }
        List<List<String>> removals = plan.moved().keySet().stream()
                .map(name -> List.of("mcp", "remove", "--scope", scope, name)).toList();
        return new Through(agent, executable.get(), scope, add, removals, touched);
    }

    /**
     * Runs the CLI's commands: the gateway's entry added first (the file never lacks both), checked to be in the
     * planned file, then each moved entry removed, and the file checked to hold the gateway's entry alone.
     *
     * @param route the CLI and its commands
     * @param command the gateway's command line, as the entry must have it
     * @param cwd the directory to run in (the project's, for its scope)
     * @param env the CLI's environment
     * @return empty when the file is connected; otherwise what went wrong, every touched file as it was before
     */
    static Optional<String> run(Through route, List<String> command, Path cwd, Map<String, String> env) {
        Duration timeout = timeout(env);
        Map<Path, Optional<byte[]>> before = new LinkedHashMap<>();
        for (Path file : route.touched()) {
            try {
                before.put(file, Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty());
            } catch (IOException e) {
                return Optional.of(file + ": cannot read: " + e.getMessage());
            }
        }
        Path file = route.touched().get(0);
        Optional<String> failed = exec(route, route.add(), cwd, env, timeout);
        if (failed.isEmpty() && !gatewayIn(route.agent(), file, command)) {
            // It wrote somewhere else: take its entry out of there, as it would.
            exec(route, List.of("mcp", "remove", "--scope", route.scope(), AgentConnection.GATEWAY), cwd, env, timeout);
            failed = Optional.of(line(route.agent(), route.add()) + " did not write the entry into " + file);
        }
        for (List<String> removal : route.removals()) {
            if (failed.isPresent()) {
                break;
            }
            failed = exec(route, removal, cwd, env, timeout);
        }
        if (failed.isEmpty() && !gatewayAlone(route.agent(), file, command)) {
            failed = Optional.of(file + " does not hold the gateway's entry alone afterwards");
        }
        if (failed.isPresent()) {
            Optional<String> undone = restore(before);
            return Optional.of(failed.get() + undone.map(problem -> "; and " + problem)
                    .orElse("; what it changed is undone"));
        }
        return Optional.empty();
    }

    /** Every file back as it was: its bytes, or no file. */
    private static Optional<String> restore(Map<Path, Optional<byte[]>> before) {
        List<String> problems = new ArrayList<>();
        before.forEach((file, bytes) -> {
            try {
                if (bytes.isPresent()) {
                    if (!Files.exists(file) || !java.util.Arrays.equals(bytes.get(), Files.readAllBytes(file))) {
                        Connections.write(file, bytes.get());
                    }
                } else {
                    Files.deleteIfExists(file);
                }
            } catch (IOException | CliException e) {
                problems.add(file + " could not be put back: " + e.getMessage());
            }
        });
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    private static boolean gatewayIn(String agent, Path file, List<String> command) {
        return gateway(agent, file).map(entry -> is(entry, command)).orElse(false);
    }

    private static boolean gatewayAlone(String agent, Path file, List<String> command) {
        try {
            JsonNode servers = AgentConnection.servers(agent, Files.exists(file) ? Files.readAllBytes(file)
                    : new byte[0]);
            return servers.size() == 1 && is(servers.path(AgentConnection.GATEWAY), command);
        } catch (IOException | McpException e) {
            return false;
        }
    }

    private static Optional<JsonNode> gateway(String agent, Path file) {
        try {
            JsonNode entry = AgentConnection.servers(agent, Files.exists(file) ? Files.readAllBytes(file)
                    : new byte[0]).path(AgentConnection.GATEWAY);
            return entry.isObject() ? Optional.of(entry) : Optional.empty();
        } catch (IOException | McpException e) {
            return Optional.empty();
        }
    }

    /** The gateway's command line, and nothing that would change how it runs. */
    private static boolean is(JsonNode entry, List<String> command) {
        List<String> args = new ArrayList<>();
        entry.path("args").forEach(arg -> args.add(arg.asString("")));
        return entry.path("command").asString("").equals(command.get(0))
                && args.equals(command.subList(1, command.size()))
                && !entry.has("url") && !entry.has("httpUrl") && entry.path("env").isEmpty()
                && !entry.has("cwd");
    }

    /**
     * One run of the CLI: no stdin, its output kept (a bounded part), at most {@code timeout}; on timeout it and what
     * it started are killed.
     *
     * @return empty on exit code 0; otherwise the command and what went wrong, secrets masked
     */
    private static Optional<String> exec(Through route, List<String> args, Path cwd, Map<String, String> env,
            Duration timeout) {
        List<String> argv = new ArrayList<>();
        argv.add(route.executable().toString());
        argv.addAll(args);
        String shown = line(route.agent(), args);
        ProcessBuilder builder = new ProcessBuilder(argv).directory(cwd.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return Optional.of(shown + " could not start: " + e.getMessage());
        }
        Drain out = Drain.start(process.getInputStream(), "mcp-connect-" + route.agent() + "-stdout");
        Drain err = Drain.start(process.getErrorStream(), "mcp-connect-" + route.agent() + "-stderr");
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // It has stopped reading already: no stdin is what it gets either way.
        }
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                return Optional.of(shown + " did not finish within " + timeout.toSeconds() + " s (ended)");
            }
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return Optional.of(shown + " was interrupted");
        }
        if (process.exitValue() == 0) {
            return Optional.empty();
        }
        String said = err.text().isBlank() ? out.text() : err.text();
        String first = said.strip().lines().findFirst().orElse("");
        if (first.length() > 200) {
            first = first.substring(0, 200) + "...";
        }
        return Optional.of(shown + " failed (exit " + process.exitValue() + (first.isEmpty() ? "" : ": "
                + Secrets.maskText(first)) + ")");
    }

    /** A stream read to its end by a thread of its own, the first part kept. */
    private static final class Drain {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final Thread thread;

        private Drain(InputStream in, String name) {
            thread = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try (in) {
                    for (int n; (n = in.read(buffer)) >= 0;) {
                        synchronized (kept) {
                            kept.write(buffer, 0, Math.max(0, Math.min(n, KEPT_OUTPUT - kept.size())));
                        }
                    }
                } catch (IOException e) {
                    // The process is gone: what came is what there is.
                }
            }, name);
            thread.setDaemon(true);
        }

        static Drain start(InputStream in, String name) {
            Drain drain = new Drain(in, name);
            drain.thread.start();
            return drain;
        }

        /** What came, after a bounded wait for the end (a process it started may hold the stream open). */
        String text() {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (kept) {
                return kept.toString(StandardCharsets.UTF_8);
            }
        }
    }

    private static Duration timeout(Map<String, String> env) {
        String seconds = env.get("MCP_HOST_CONNECT_CLI_TIMEOUT");
        if (seconds != null && !seconds.isBlank()) {
            try {
                return Duration.ofSeconds(Math.max(1, Long.parseLong(seconds.strip())));
            } catch (NumberFormatException e) {
                // A value that is not a number of seconds: the default.
            }
        }
        return TIMEOUT;
    }

    /** The executable named {@code name} in the PATH of {@code env}. */
    static Optional<Path> onPath(String name, Map<String, String> env) {
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue; // the working directory: not where a user's tools are looked for here
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static String line(String agent, List<String> args) {
        List<String> words = new ArrayList<>(List.of(agent));
        args.forEach(arg -> words.add(PLAIN.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'"));
        return String.join(" ", words);
    }
}
