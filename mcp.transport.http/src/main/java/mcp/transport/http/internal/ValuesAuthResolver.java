package mcp.transport.http.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import mcp.api.HttpServerConfig;
import mcp.api.ServerConfig;
import mcp.api.ServerConfig.AuthRef;
import mcp.api.SseServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthStorage;
import mcp.auth.internal.Urls;
import mcp.transport.http.HttpTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code values} auth resolver: resolves the env values of a stdio server, the header values of
 * an http or sse server and the {@code auth.options} values of an http server, on a copy of the
 * config, and adds the stored credential of a config's {@code auth}.
 *
 * <p>The first two rules are mcp-host's own value syntax: they apply to configs whose
 * {@link ServerConfig#valueReferences()} is true (mcp-host's own files), never to the values of another
 * tool's file, which that tool passes as written.
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
 *   <li>Stored bearer credentials: a config with {@code auth} of type {@code oauth} or {@code apikey}
 *       whose {@code credentialId} (else the server name) has an unexpired credential in the
 *       {@linkplain Context#authStorage() auth storage} gets {@code Authorization: Bearer <token>}
 *       (http, sse) unless it sets an {@code Authorization} header itself, or the env variable
 *       {@value #TOKEN_VARIABLE} (stdio) unless it sets that itself. No credential, or an expired one,
 *       is no error: the HTTP transport's OAuth client may obtain or refresh one. A store that cannot
 *       be read (a corrupt file, one others may read) fails the resolve with the store's message.</li>
 * </ul>
 * The commands of header values are recorded in the resolved config's {@link mcp.api.HeaderCommands#values()}: the
 * transport runs them again when the server refuses a request (401, 403), and the new value replaces the kept one.
 * Resolved values are never logged. Public with a public no-argument constructor for
 * {@link java.util.ServiceLoader}; thread-safe.
 */
public final class ValuesAuthResolver implements AuthResolver {

    private static final Logger LOG = LoggerFactory.getLogger(ValuesAuthResolver.class);

    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** The env variable a stdio server gets its stored access token in. */
    static final String TOKEN_VARIABLE = "OAUTH_ACCESS_TOKEN";

    /** The header an http or sse server gets its stored access token in. */
    private static final String AUTHORIZATION = "Authorization";

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
        Optional<AuthStorage> storage = context == null ? Optional.empty() : context.authStorage();
        if (config instanceof StdioServerConfig stdio) {
            Map<String, String> env = resolveAll(serverName, "env variable", config, stdio.env(), environment);
            Map<String, String> withToken = withStoredToken(serverName, stdio, stdio.env(),
                    env == null ? stdio.env() : env, storage, TOKEN_VARIABLE, "");
            if (withToken != null) {
                env = withToken;
            }
            return env == null ? config : stdio.withEnv(env);
        }
        if (config instanceof HttpServerConfig http) {
            HttpServerConfig result = http;
            Map<String, String> headers = resolveAll(serverName, "header", config, http.headers(), environment);
            Map<String, String> commands = headerCommands(config, http.headers());
            if (!commands.isEmpty()) {
                result = result.withHeaderCommands(http.headerCommands().withValues(commands));
            }
            Map<String, String> withToken = withStoredToken(serverName, http, http.headers(),
                    headers == null ? http.headers() : headers, storage, AUTHORIZATION, "Bearer ");
            if (withToken != null) {
                headers = withToken;
            }
            if (headers != null) {
                result = result.withHeaders(headers);
            }
            if (http.auth().isPresent()) {
                AuthRef auth = http.auth().get();
                Map<String, String> options = resolveAll(serverName, "auth option", config, auth.options(), environment);
                if (options != null) {
                    result = result.withAuth(Optional.of(auth.withOptions(options)));
                }
            }
            return result == http ? config : result;
        }
        if (config instanceof SseServerConfig sse) {
            SseServerConfig result = sse;
            Map<String, String> headers = resolveAll(serverName, "header", config, sse.headers(), environment);
            Map<String, String> commands = headerCommands(config, sse.headers());
            if (!commands.isEmpty()) {
                result = result.withHeaderCommands(sse.headerCommands().withValues(commands));
            }
            Map<String, String> withToken = withStoredToken(serverName, sse, sse.headers(),
                    headers == null ? sse.headers() : headers, storage, AUTHORIZATION, "Bearer ");
            if (withToken != null) {
                headers = withToken;
            }
            if (headers != null) {
                result = result.withHeaders(headers);
            }
            return result == sse ? config : result;
        }
        return config;
    }

    private static String canonical(String url) {
        try {
            return Urls.canonical(java.net.URI.create(url.trim()));
        } catch (IllegalArgumentException | NullPointerException e) {
            return url;
        }
    }

    /**
     * @param written the env or headers as the config has them
     * @param values the env or headers as resolved so far
     * @param key where the token goes
     * @param prefix what goes before the token
     * @return the values with the stored token added, or {@code null} when there is none to add
     */
    private static Map<String, String> withStoredToken(String serverName, ServerConfig config,
            Map<String, String> written, Map<String, String> values, Optional<AuthStorage> storage, String key,
            String prefix) {
        if (config.auth().isEmpty() || storage.isEmpty()) {
            return null;
        }
        AuthRef auth = config.auth().get();
        String type = auth.type().toLowerCase(Locale.ROOT);
        if (!type.equals("oauth") && !type.equals("apikey")) {
            return null;
        }
        // Header names are case-insensitive; env names are not. What the config sets itself wins, even
        // when its command failed: the user chose that source of the credential.
        boolean header = !prefix.isEmpty();
        if (header ? written.keySet().stream().anyMatch(key::equalsIgnoreCase) : written.containsKey(key)) {
            LOG.debug("MCP server \"{}\": its config sets {} itself; the stored credential is not used", serverName,
                    key);
            return null;
        }
        String credentialId = auth.credentialId().isBlank() ? serverName : auth.credentialId();
        Optional<StoredCredential> stored = storage.get().load(credentialId);
        if (stored.isEmpty()) {
            LOG.debug("MCP server \"{}\": no stored credential \"{}\" in the {} auth storage", serverName,
                    credentialId, storage.get().id());
            return null;
        }
        StoredCredential credential = stored.get();
        Optional<String> url = config instanceof HttpServerConfig http ? Optional.of(http.url())
                : config instanceof SseServerConfig sse ? Optional.of(sse.url()) : Optional.empty();
        Optional<String> resource = credential.attribute(StoredCredential.RESOURCE);
        if (url.isPresent() && resource.isPresent() && !resource.get().equals(canonical(url.get()))) {
            // A token goes only to the server it was obtained for, even when the config's URL changed.
            LOG.info("MCP server \"{}\": the stored credential \"{}\" was obtained for another URL; it is not used",
                    serverName, credentialId);
            return null;
        }
        if (credential.expiredAt(Instant.now(), Duration.ZERO)) {
            if (header) {
                LOG.debug("MCP server \"{}\": the stored credential \"{}\" expired at {}; the OAuth client may "
                        + "refresh it", serverName, credentialId, credential.expiresAt().get());
            } else {
                LOG.warn("MCP server \"{}\": the stored credential \"{}\" expired at {}; {} is not set. Log in "
                        + "again.", serverName, credentialId, credential.expiresAt().get(), key);
            }
            return null;
        }
        if (!credential.tokenType().equalsIgnoreCase("Bearer")) {
            // A DPoP-bound token (RFC 9449) is no bearer token: only the OAuth client, which proves the key with
            // every request, can present it.
            LOG.debug("MCP server \"{}\": the stored credential \"{}\" is a {} token; it is not set as a bearer token",
                    serverName, credentialId, credential.tokenType());
            return null;
        }
        Map<String, String> result = new LinkedHashMap<>(values);
        result.put(key, prefix + credential.accessToken());
        LOG.debug("MCP server \"{}\": {} set from the stored credential \"{}\"", serverName, key, credentialId);
        return result;
    }

    /**
     * The {@code !command} header values, recorded in the resolved config so that the transport can run them
     * again when the server refuses what they printed (an expired token): header name to command.
     */
    private static Map<String, String> headerCommands(ServerConfig config, Map<String, String> headers) {
        Map<String, String> commands = new LinkedHashMap<>();
        if (config.valueReferences()) {
            headers.forEach((key, value) -> {
                String command = value.startsWith("!") ? value.substring(1).trim() : "";
                if (!command.isEmpty()) {
                    commands.put(key, command);
                }
            });
        }
        return commands;
    }

    /** @return the resolved map, or {@code null} when nothing changed */
    private Map<String, String> resolveAll(String serverName, String kind, ServerConfig config,
            Map<String, String> values, Map<String, String> environment) {
        if (values.isEmpty() || !config.valueReferences()) {
            // Another tool's values are passed as that tool passes them: as written.
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
