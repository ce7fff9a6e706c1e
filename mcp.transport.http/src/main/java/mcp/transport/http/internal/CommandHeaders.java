package mcp.transport.http.internal;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import mcp.api.HeaderCommands;
import mcp.api.McpJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The headers of one endpoint: the config's, with what its {@link HeaderCommands} print. The headers
 * helper runs when the endpoint opens; on a refused request ({@link #refresh}) the helper and every
 * {@code !command} value run again, and the request goes out once more when that changed the headers.
 *
 * <p>The headers are an immutable {@link Snapshot} replaced as a whole, numbered so that a request can tell
 * whether the headers changed since it went out: a refusal of headers already replaced needs no new run.
 * One refresh runs at a time; requests refused meanwhile wait for it. Its commands are bounded by the
 * runner's timeout; nothing they print, and nothing of their stderr, is logged.
 */
final class CommandHeaders {

    private static final Logger LOG = LoggerFactory.getLogger(CommandHeaders.class);

    /** The variable with the server's name that a headers helper gets, as in Claude Code. */
    static final String SERVER_NAME_VARIABLE = "CLAUDE_CODE_MCP_SERVER_NAME";

    /** The variable with the server's URL that a headers helper gets, as in Claude Code. */
    static final String SERVER_URL_VARIABLE = "CLAUDE_CODE_MCP_SERVER_URL";

    /**
     * The headers to send, and their number: it grows by one each time a refresh changes them.
     *
     * @param headers header name to value, as sent
     * @param generation how many times they changed
     */
    record Snapshot(Map<String, String> headers, int generation) {
        Snapshot {
            headers = Map.copyOf(headers);
        }
    }

    private final String serverName;
    private final String url;
    private final Map<String, String> configured;
    private final HeaderCommands commands;
    private final CommandRunner runner;
    private final Map<String, String> environment;
    private final File directory;
    /** Drops what cannot be sent (names the transport sets itself, invalid values), with a warning. */
    private final UnaryOperator<Map<String, String>> usable;

    private volatile Snapshot current;
    /** The refresh in progress, or null; guarded by {@code this}. */
    private CompletableFuture<Boolean> refreshing;

    private CommandHeaders(String serverName, String url, Map<String, String> configured, HeaderCommands commands,
            CommandRunner runner, Map<String, String> environment, File directory,
            UnaryOperator<Map<String, String>> usable) {
        this.serverName = serverName;
        this.url = url;
        this.configured = Map.copyOf(configured);
        this.commands = commands;
        this.runner = runner;
        this.environment = Map.copyOf(environment);
        this.directory = directory;
        this.usable = usable;
    }

    /**
     * Runs the headers helper, if any, and makes the first snapshot.
     *
     * @param serverName the server's name (messages, and the helper's environment)
     * @param url the server's URL as configured (the helper's environment)
     * @param configured the config's headers, resolved
     * @param commands the config's header commands
     * @param runner where commands run
     * @param environment the host's environment
     * @param workingDirectory the host's working directory, where a helper without a directory of its own runs
     * @param usable what keeps only the headers that can be sent
     * @return the headers of the endpoint
     */
    static CommandHeaders open(String serverName, String url, Map<String, String> configured, HeaderCommands commands,
            CommandRunner runner, Map<String, String> environment, java.nio.file.Path workingDirectory,
            UnaryOperator<Map<String, String>> usable) {
        File directory = commands.helper().flatMap(HeaderCommands.Helper::directory)
                .map(dir -> workingDirectory.resolve(dir).toFile()).orElse(workingDirectory.toFile());
        CommandHeaders headers = new CommandHeaders(serverName, url, configured, commands, runner, environment,
                directory, usable);
        Map<String, String> first = new LinkedHashMap<>(configured);
        headers.helperHeaders().ifPresent(helper -> putAll(first, helper));
        headers.current = new Snapshot(usable.apply(first), 0);
        return headers;
    }

    /** @return the headers to send now */
    Snapshot current() {
        return current;
    }

    /** @return whether a headers helper gives some of the headers */
    boolean hasHelper() {
        return commands.helper().isPresent();
    }

    /** @return whether some header comes from a command, so that a refusal may be answered by running it again */
    boolean refreshable() {
        return !commands.isEmpty();
    }

    /**
     * Runs the commands again after the server refused a request that carried the headers of
     * {@code sentGeneration}.
     *
     * @param sentGeneration the {@link Snapshot#generation()} the refused request carried
     * @return a future of whether the headers now differ from those the request carried (then it is worth
     *     sending again); it does not fail: a refresh that went wrong changed nothing
     */
    CompletableFuture<Boolean> refresh(int sentGeneration) {
        synchronized (this) {
            if (current.generation() != sentGeneration) {
                return CompletableFuture.completedFuture(true); // another refresh replaced them already
            }
            if (refreshing == null || refreshing.isDone()) {
                LOG.debug("MCP server \"{}\": the server refused the request; running its header commands again",
                        serverName);
                refreshing = CompletableFuture.supplyAsync(this::runAgain, this::waiter);
            }
            // A refresh that failed unexpectedly changed nothing: the refusal then stands as the server worded it.
            return refreshing.handle((changed, error) -> current.generation() != sentGeneration);
        }
    }

    /** Every run happens on the runner's own threads; this one only waits for them, bounded. */
    private void waiter(Runnable runnable) {
        Thread thread = new Thread(runnable, "mcp-http-" + serverName + "-header-commands");
        thread.setDaemon(true);
        thread.start();
    }

    private boolean runAgain() {
        Snapshot before = current;
        Map<String, CompletableFuture<CommandRunner.Result>> values = new LinkedHashMap<>();
        commands.values().forEach((header, command) -> values.put(header, runner.rerun(command, environment)));
        Map<String, String> next = new LinkedHashMap<>(before.headers());
        // A value keeps its old one when its command fails now: the request then fails as the server words it.
        values.forEach((header, run) -> await(run, "header \"" + header + "\"").ifPresent(value -> put(next, header,
                value)));
        if (commands.helper().isPresent()) {
            // The helper's headers are all replaced: one it no longer prints is no longer sent, as at a connect.
            Map<String, String> rebuilt = new LinkedHashMap<>(configured);
            values.keySet().forEach(header -> Optional.ofNullable(next.get(header)).ifPresent(v -> put(rebuilt, header,
                    v)));
            helperHeaders().ifPresent(helper -> putAll(rebuilt, helper));
            next.clear();
            next.putAll(rebuilt);
        }
        Map<String, String> sendable = usable.apply(next);
        synchronized (this) {
            if (sendable.equals(current.headers())) {
                LOG.debug("MCP server \"{}\": its header commands gave the same headers again", serverName);
                return false;
            }
            current = new Snapshot(sendable, current.generation() + 1);
        }
        LOG.debug("MCP server \"{}\": new headers from its header commands", serverName);
        return true;
    }

    /** Runs the helper; its headers, or empty (with a warning) when it failed. */
    private Optional<Map<String, String>> helperHeaders() {
        if (commands.helper().isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> env = new HashMap<>(environment);
        env.put(SERVER_NAME_VARIABLE, serverName);
        env.put(SERVER_URL_VARIABLE, url);
        Optional<String> output = await(runner.once(commands.helper().get().command(), env, directory),
                "headersHelper");
        if (output.isEmpty()) {
            return Optional.empty();
        }
        Optional<Map<String, String>> parsed = parse(output.get());
        if (parsed.isEmpty()) {
            // As Claude Code words it; never the output, which holds the credential.
            LOG.warn("MCP server \"{}\": its headersHelper did not print a JSON object of string values; its headers "
                    + "are left out", serverName);
        }
        return parsed;
    }

    /** A JSON object whose values are all strings, as Claude Code takes it; anything else is refused whole. */
    static Optional<Map<String, String>> parse(String output) {
        JsonNode json;
        try {
            json = McpJson.mapper().readTree(output);
        } catch (JacksonException e) {
            return Optional.empty();
        }
        if (json == null || !json.isObject()) {
            return Optional.empty();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : json.properties()) {
            if (!entry.getValue().isString()) {
                return Optional.empty();
            }
            headers.put(entry.getKey(), entry.getValue().stringValue());
        }
        return Optional.of(headers);
    }

    private Optional<String> await(CompletableFuture<CommandRunner.Result> run, String what) {
        // The run bounds itself; this bound only guards against a runner that never completes.
        long bound = runner.timeout().toMillis() + 5_000;
        CommandRunner.Result result;
        try {
            result = run.get(bound, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = new CommandRunner.Result(Optional.empty(), "was interrupted");
        } catch (ExecutionException | TimeoutException e) {
            result = new CommandRunner.Result(Optional.empty(), "did not finish");
        }
        if (result.value().isEmpty()) {
            LOG.warn("MCP server \"{}\": the command of {} {}", serverName, what, result.failure());
        }
        return result.value();
    }

    /** Header names are case-insensitive: a later value replaces one of any spelling. */
    private static void put(Map<String, String> headers, String name, String value) {
        headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(name));
        headers.put(name, value);
    }

    private static void putAll(Map<String, String> headers, Map<String, String> more) {
        more.forEach((name, value) -> put(headers, name, value));
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>(current.headers().keySet());
        names.sort(String.CASE_INSENSITIVE_ORDER);
        return "CommandHeaders[" + serverName + ", headers=" + names + ", generation=" + current.generation() + "]";
    }
}
