package mcp.cli.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.StoredCredential;
import mcp.api.ToolDefinition;
import mcp.api.spi.AuthResolver;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.config.DiscoveryResult;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code auth}: OAuth credentials of remote servers. {@code login} connects one {@code http} server
 * with an authorization UI, so that the transport's OAuth client can ask the user and store what it
 * obtains; {@code logout} deletes a stored credential; {@code status} shows what is stored.
 *
 * <p>A credential is stored under the config's {@code auth.credentialId}, else the server name. No
 * output ever shows a token or a client secret: only scopes, expiry, whether there is a refresh
 * token, and the issuer.
 */
@Command(name = "auth", description = {
    "Log in to remote (http) MCP servers that use OAuth, log out, and show the stored credentials.",
    "Credentials are stored under the config's auth.credentialId, else the server name."},
        subcommands = {AuthCommand.Login.class, AuthCommand.Logout.class, AuthCommand.Status.class})
final class AuthCommand implements Callable<Integer> {

    /** How long {@code login} waits for the user by default. */
    static final long DEFAULT_LOGIN_TIMEOUT_MILLIS = 300_000;

    @ParentCommand
    McpHostCommand root;

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** Without a subcommand: the usage, and a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(root.io().err());
        return ExitCodes.USAGE;
    }

    /** {@code auth login NAME}: authorize mcp-host for one server, then list its tools. */
    @Command(name = "login", description = {
        "Connect an http server, authorizing mcp-host in the browser when the server asks for it, and store"
                + " the credential.",
        "Exit 1 when the authorization or the connection fails."})
    static final class Login implements Callable<Integer> {

        @ParentCommand
        AuthCommand auth;

        @Parameters(index = "0", paramLabel = "NAME", description = "The server.")
        String name;

        @Option(names = "--headless",
                description = "Follow the authorization URL without a browser (for authorization servers that"
                        + " redirect at once, such as test servers).")
        boolean headless;

        @Option(names = "--timeout", paramLabel = "MS",
                description = "How long to wait for the authorization and the connection (default: 300000).")
        long timeoutMillis = DEFAULT_LOGIN_TIMEOUT_MILLIS;

        @Override
        public Integer call() {
            CliContext context = auth.root.context();
            ServerConfig config = ServerLookup.find(context.discover(), name).getKey();
            if (!(config instanceof HttpServerConfig) && !(config instanceof SseServerConfig)) {
                throw CliException.usage("MCP server \"" + name + "\" is a " + config.type() + " server; auth login"
                        + " works with http and sse servers (OAuth)");
            }
            String credentialId = credentialId(name, config);
            AuthStorage storage = context.authStorage();
            AuthorizationUi ui = ui(headless ? "headless" : "browser");
            TransportProvider http = Providers.require(TransportProvider.class, Providers.byId(TransportProvider.class,
                    Providers.load(TransportProvider.class, AuthCommand.class.getClassLoader()), TransportProvider::id),
                    config.type());
            ServerConfig resolved = resolve(context, storage, config);
            Duration timeout = Duration.ofMillis(Math.max(1, timeoutMillis));
            ClientOptions options = ClientOptions.builder(name)
                    // The handshake waits for the user: the OAuth flow runs inside the transport's first request.
                    .initializeTimeout(timeout.compareTo(config.timeout()) > 0 ? timeout : config.timeout())
                    .requestTimeout(config.timeout())
                    .build();
            List<ToolDefinition> tools;
            try (McpClient client = McpClient.connectBlocking(http.open(TransportRequest.of(name, resolved,
                    context.workingDirectory()).withAuth(new AuthServices(storage, Optional.of(ui)))), options)) {
                tools = client.listToolsBlocking();
            } catch (McpException e) {
                throw new CliException(ExitCodes.FAILURE, "Login to " + name + " failed: " + e.getMessage());
            }
            Optional<StoredCredential> credential = loadQuietly(context, storage, credentialId);
            if (context.json()) {
                ObjectNode document = McpJson.object();
                document.put("name", name);
                document.put("credentialId", credentialId);
                document.put("tools", tools.size());
                document.put("stored", credential.isPresent());
                credential.ifPresent(c -> describe(document, c, Instant.now()));
                context.printJson(document);
            } else {
                context.out().println("Logged in to " + name + " (" + tools.size() + (tools.size() == 1 ? " tool)" : " tools)"));
                if (credential.isEmpty()) {
                    context.out().println("  The server asked for no authorization: no credential stored.");
                } else {
                    StoredCredential c = credential.get();
                    context.out().println("  credential: " + credentialId);
                    context.out().println("  scopes: " + scopes(c));
                    context.out().println("  expires: " + expiry(c.expiresAt(), Instant.now()));
                    context.out().println("  refresh token: " + (c.refreshToken().isPresent() ? "yes" : "no"));
                    c.attribute(StoredCredential.ISSUER).ifPresent(issuer -> context.out().println("  issuer: " + issuer));
                }
            }
            return ExitCodes.OK;
        }

        /** The config with its secret references resolved, as the host would connect it. */
        private ServerConfig resolve(CliContext context, AuthStorage storage, ServerConfig config) {
            AuthResolver.Context resolverContext = new AuthResolver.Context() {
                @Override
                public Map<String, String> environment() {
                    return context.env();
                }

                @Override
                public Optional<AuthStorage> authStorage() {
                    return Optional.of(storage);
                }
            };
            ServerConfig resolved = config;
            for (AuthResolver resolver : Providers.load(AuthResolver.class, AuthCommand.class.getClassLoader())) {
                resolved = resolver.resolve(name, resolved, resolverContext);
            }
            return resolved;
        }

        private static AuthorizationUi ui(String id) {
            try {
                return Providers.require(AuthorizationUi.class, Providers.byId(AuthorizationUi.class,
                        Providers.load(AuthorizationUi.class, AuthCommand.class.getClassLoader()), AuthorizationUi::id), id);
            } catch (McpException e) {
                throw CliException.usage(e.getMessage());
            }
        }
    }

    /** {@code auth logout NAME}: delete the stored credential of a server. */
    @Command(name = "logout", description = {
        "Delete the stored credential of a server (NAME may also be a credential id).",
        "Says whether there was one; exit 0 either way."})
    static final class Logout implements Callable<Integer> {

        @ParentCommand
        AuthCommand auth;

        @Parameters(index = "0", paramLabel = "NAME", description = "The server, or a credential id.")
        String name;

        @Override
        public Integer call() {
            CliContext context = auth.root.context();
            AuthStorage storage = context.authStorage();
            ServerConfig config = discoverQuietly(context).map(d -> d.configs().get(name)).orElse(null);
            String credentialId = config == null ? name : credentialId(name, config);
            boolean deleted = storage.delete(credentialId);
            if (context.json()) {
                ObjectNode document = McpJson.object();
                document.put("name", name);
                document.put("credentialId", credentialId);
                document.put("deleted", deleted);
                context.printJson(document);
            } else if (deleted) {
                context.out().println("Logged out of " + name + ": deleted the stored credential \"" + credentialId
                        + "\".");
            } else {
                context.out().println("No stored credential for " + name + " (credential id \"" + credentialId
                        + "\"): nothing to delete.");
            }
            return ExitCodes.OK;
        }
    }

    /** {@code auth status}: the stored credentials, without their secrets. */
    @Command(name = "status", description = {
        "Show the stored credentials: id, configured servers that use it, scopes, expiry, refresh token, issuer.",
        "Never a token or a secret."})
    static final class Status implements Callable<Integer> {

        @ParentCommand
        AuthCommand auth;

        /** One stored credential, as shown. */
        record Row(String credentialId, List<String> servers, Optional<StoredCredential> credential, String error) {
        }

        @Override
        public Integer call() {
            CliContext context = auth.root.context();
            AuthStorage storage = context.authStorage();
            Optional<DiscoveryResult> discovery = discoverQuietly(context);
            Instant now = Instant.now();
            List<Row> rows = new ArrayList<>();
            for (String credentialId : storage.credentialIds()) {
                List<String> servers = discovery.map(d -> serversUsing(d, credentialId)).orElse(List.of());
                try {
                    rows.add(new Row(credentialId, servers, storage.load(credentialId), null));
                } catch (McpException e) {
                    rows.add(new Row(credentialId, servers, Optional.empty(), e.getMessage()));
                }
            }
            if (context.json()) {
                ArrayNode array = McpJson.mapper().createArrayNode();
                for (Row row : rows) {
                    ObjectNode node = array.addObject();
                    node.put("credentialId", row.credentialId());
                    ArrayNode servers = node.putArray("servers");
                    row.servers().forEach(servers::add);
                    row.credential().ifPresent(c -> describe(node, c, now));
                    if (row.error() != null) {
                        node.put("error", row.error());
                    }
                }
                context.printJson(array);
            } else if (rows.isEmpty()) {
                context.out().println("No stored credentials. Log in with: mcp-host auth login NAME");
            } else {
                print(context, rows, now);
            }
            return ExitCodes.OK;
        }

        private static void print(CliContext context, List<Row> rows, Instant now) {
            List<List<String>> table = new ArrayList<>();
            table.add(List.of("CREDENTIAL", "SERVERS", "SCOPES", "EXPIRES", "REFRESH", "ISSUER"));
            for (Row row : rows) {
                String servers = row.servers().isEmpty() ? "-" : String.join(", ", row.servers());
                if (row.credential().isEmpty()) {
                    String error = row.error() == null ? "(gone)" : "error: " + row.error();
                    table.add(List.of(row.credentialId(), servers, error));
                    continue;
                }
                StoredCredential c = row.credential().get();
                table.add(List.of(row.credentialId(), servers, scopes(c), expiry(c.expiresAt(), now),
                        c.refreshToken().isPresent() ? "yes" : "no", c.attribute(StoredCredential.ISSUER).orElse("-")));
            }
            int[] widths = new int[6];
            for (List<String> line : table) {
                // A line with an error spans the remaining columns: it does not widen them.
                for (int i = 0; i < line.size() - (line.size() < widths.length ? 1 : 0); i++) {
                    widths[i] = Math.max(widths[i], line.get(i).length());
                }
            }
            for (List<String> line : table) {
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < line.size(); i++) {
                    text.append(line.get(i));
                    if (i < line.size() - 1) {
                        text.append(" ".repeat(widths[i] - line.get(i).length() + 2));
                    }
                }
                context.out().println(text.toString().stripTrailing());
            }
        }
    }

    /** @return the key a server's credential is stored under: its {@code auth.credentialId}, else its name */
    static String credentialId(String serverName, ServerConfig config) {
        return config.auth().map(ServerConfig.AuthRef::credentialId).filter(id -> !id.isBlank()).orElse(serverName);
    }

    /**
     * @return the configured servers whose credential is this one: remote servers by name or
     *     {@code auth.credentialId}, any server by an explicit {@code auth.credentialId}
     */
    static List<String> serversUsing(DiscoveryResult discovery, String credentialId) {
        List<String> servers = new ArrayList<>();
        discovery.configs().forEach((name, config) -> {
            boolean remote = !config.type().equals("stdio");
            if (credentialId(name, config).equals(credentialId) && (remote || config.auth().isPresent())) {
                servers.add(name);
            }
        });
        return servers;
    }

    /** Discovery for naming servers only: a failure is a warning, the credentials are still shown. */
    private static Optional<DiscoveryResult> discoverQuietly(CliContext context) {
        try {
            return Optional.of(context.discover());
        } catch (CliException e) {
            context.warn(e.getMessage());
            return Optional.empty();
        }
    }

    private static Optional<StoredCredential> loadQuietly(CliContext context, AuthStorage storage, String credentialId) {
        try {
            return storage.load(credentialId);
        } catch (McpException e) {
            context.warn(e.getMessage());
            return Optional.empty();
        }
    }

    /** Adds what may be shown of a credential: never a token or a secret. */
    static void describe(ObjectNode node, StoredCredential credential, Instant now) {
        ArrayNode scopes = node.putArray("scopes");
        credential.scopes().forEach(scopes::add);
        node.put("expiresAt", credential.expiresAt().map(Instant::toString).orElse(null));
        node.put("expires", expiry(credential.expiresAt(), now));
        node.put("expired", credential.expiredAt(now, Duration.ZERO));
        node.put("refreshToken", credential.refreshToken().isPresent());
        node.put("issuer", credential.attribute(StoredCredential.ISSUER).orElse(null));
        node.put("obtainedAt", credential.obtainedAt().toString());
    }

    private static String scopes(StoredCredential credential) {
        return credential.scopes().isEmpty() ? "-" : String.join(" ", credential.scopes());
    }

    /**
     * @param expiresAt when a token expires, if known
     * @param now the current time
     * @return e.g. {@code in 52 min}, {@code in 3 h}, {@code in 2 d}, {@code expired}, {@code unknown}
     */
    static String expiry(Optional<Instant> expiresAt, Instant now) {
        if (expiresAt.isEmpty()) {
            return "unknown";
        }
        Duration left = Duration.between(now, expiresAt.get());
        if (left.isNegative() || left.isZero()) {
            return "expired";
        }
        long minutes = left.toMinutes();
        if (minutes < 1) {
            return "in <1 min";
        }
        if (minutes < 120) {
            return "in " + minutes + " min";
        }
        long hours = left.toHours();
        return hours < 48 ? "in " + hours + " h" : "in " + left.toDays() + " d";
    }
}
