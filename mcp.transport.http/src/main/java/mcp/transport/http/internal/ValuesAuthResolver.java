package mcp.transport.http.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.spi.AuthResolver;
import mcp.transport.http.HttpTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code values} auth resolver: resolves the env values of a stdio server and the header values
 * of an http or sse server, on a copy of the config.
 *
 * <ul>
 *   <li>A value starting with {@code !} is a shell command ({@code /bin/sh -c}, with the host's
 *       environment); its trimmed stdout becomes the value. The run is bounded
 *       ({@link HttpTransports#COMMAND_TIMEOUT}), its result is kept for the life of the JVM and
 *       concurrent uses of one command share one run. A command that fails, times out or prints
 *       nothing removes the key, with a warning that names the server and the key, never the value.</li>
 *   <li>A value that is the name of an environment variable ({@code [A-Za-z_][A-Za-z0-9_]*}) set to a
 *       non-empty value takes that value.</li>
 *   <li>Anything else is kept as written.</li>
 * </ul>
 * Resolved values are never logged. Public with a public no-argument constructor for
 * {@link java.util.ServiceLoader}; thread-safe.
 */
public final class ValuesAuthResolver implements AuthResolver {

    private static final Logger LOG = LoggerFactory.getLogger(ValuesAuthResolver.class);

    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final CommandRunner runner;

    /** Creates the resolver with the JVM's shared command cache. */
    public ValuesAuthResolver() {
        this(CommandRunner.SHARED);
    }

    ValuesAuthResolver(CommandRunner runner) {
        this.runner = Objects.requireNonNull(runner, "runner");
    }

    @Override
    public String id() {
        return HttpTransports.VALUES_RESOLVER_ID;
    }

    @Override
    public ServerConfig resolve(String serverName, ServerConfig config, Context context) {
        Objects.requireNonNull(config, "config");
        Map<String, String> environment = context == null ? Map.of() : context.environment();
        if (config instanceof StdioServerConfig stdio) {
            Map<String, String> env = resolveAll(serverName, "env variable", stdio.env(), environment);
            return env == null ? config : stdio.withEnv(env);
        }
        if (config instanceof HttpServerConfig http) {
            Map<String, String> headers = resolveAll(serverName, "header", http.headers(), environment);
            return headers == null ? config : http.withHeaders(headers);
        }
        if (config instanceof SseServerConfig sse) {
            Map<String, String> headers = resolveAll(serverName, "header", sse.headers(), environment);
            return headers == null ? config : sse.withHeaders(headers);
        }
        return config;
    }

    /** @return the resolved map, or {@code null} when nothing changed */
    private Map<String, String> resolveAll(String serverName, String kind, Map<String, String> values,
            Map<String, String> environment) {
        if (values.isEmpty()) {
            return null;
        }
        // Start every command first, so that several run at once; each is waited for below.
        Map<String, CompletableFuture<CommandRunner.Result>> commands = new LinkedHashMap<>();
        values.forEach((key, value) -> {
            if (value.startsWith("!")) {
                String command = value.substring(1).trim();
                commands.put(key, command.isEmpty()
                        ? CompletableFuture.completedFuture(new CommandRunner.Result(java.util.Optional.empty(),
                                "is empty"))
                        : runner.run(command, environment));
            }
        });
        Map<String, String> resolved = new LinkedHashMap<>();
        boolean changed = false;
        for (Map.Entry<String, String> entry : values.entrySet()) {
            String key = entry.getKey();
            String value = entry.getValue();
            CompletableFuture<CommandRunner.Result> command = commands.get(key);
            if (command != null) {
                changed = true;
                CommandRunner.Result result = await(command);
                if (result.value().isPresent()) {
                    resolved.put(key, result.value().get());
                    LOG.debug("MCP server \"{}\": {} \"{}\" resolved from a command", serverName, kind, key);
                } else {
                    LOG.warn("MCP server \"{}\": the command of {} \"{}\" {}; the {} is left out", serverName, kind, key,
                            result.failure(), kind);
                }
                continue;
            }
            String fromEnvironment = VARIABLE_NAME.matcher(value).matches() ? environment.get(value) : null;
            if (fromEnvironment != null && !fromEnvironment.isEmpty()) {
                changed = true;
                resolved.put(key, fromEnvironment);
                LOG.debug("MCP server \"{}\": {} \"{}\" resolved from the environment variable {}", serverName, kind, key,
                        value);
            } else {
                resolved.put(key, value);
            }
        }
        return changed ? resolved : null;
    }

    private CommandRunner.Result await(CompletableFuture<CommandRunner.Result> command) {
        // The run bounds itself; this bound only guards against a runner that never completes.
        long bound = runner.timeout().toMillis() + 5_000;
        try {
            return command.get(bound, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CommandRunner.Result(java.util.Optional.empty(), "was interrupted");
        } catch (ExecutionException | TimeoutException e) {
            return new CommandRunner.Result(java.util.Optional.empty(), "did not finish");
        }
    }
}
