package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.SseServerConfig;
import mcp.api.StoredCredential;
import mcp.api.ToolResult;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.TransportRequest;
import mcp.auth.internal.FileAuthStorage;
import mcp.auth.internal.HeadlessAuthorizationUi;
import mcp.auth.internal.OAuthClient;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.AuthTestServer;
import mcp.testkit.AuthTestServer.Endpoint;
import mcp.transport.http.HttpTransports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OAuth client end to end: the real Streamable HTTP transport and {@link McpClient} against the
 * testkit's authorization server and protected MCP server on 127.0.0.1, with the file store and the
 * headless UI. Every test also proves that no token, code or client secret the server issued shows
 * up in the log (captured at DEBUG), in an error message, or anywhere in the storage directory other
 * than the credential file itself.
 */
class OAuthFlowTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    private final List<AuthTestServer> servers = new ArrayList<>();
    private final List<String> messages = new ArrayList<>();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream originalErr;
    private FileAuthStorage storage;

    @BeforeEach
    void captureLog() {
        originalErr = System.err;
        System.setErr(new PrintStream(new TeeStream(log, originalErr), true, StandardCharsets.UTF_8));
        storage = new FileAuthStorage(temp.resolve("credentials"));
    }

    @AfterEach
    void nothingLeaked() throws IOException {
        System.setErr(originalErr);
        String logged = log.toString(StandardCharsets.UTF_8);
        StringBuilder files = new StringBuilder();
        try (Stream<Path> walk = Files.walk(temp)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                if (!file.getParent().equals(storage.directory())) {
                    files.append(Files.readString(file));
                }
            }
        }
        for (AuthTestServer server : servers) {
            for (String secret : server.issuedSecrets()) {
                assertFalse(logged.contains(secret), "a secret was logged");
                assertFalse(files.toString().contains(secret), "a secret was written outside the credential store");
                for (String message : messages) {
                    assertFalse(message.contains(secret), "a secret is in the message: " + message);
                }
            }
            server.close();
        }
    }

    private AuthTestServer server(AuthTestServer.Builder builder) throws IOException {
        AuthTestServer server = builder.start();
        servers.add(server);
        return server;
    }

    private McpClient connect(AuthTestServer server, boolean withUi) {
        return connect(server, withUi, Map.of());
    }

    private McpClient connect(AuthTestServer server, boolean withUi, Map<String, String> options) {
        HttpServerConfig config = new HttpServerConfig(server.mcpUrl(), Map.of(), TIMEOUT, true,
                Optional.of(new ServerConfig.AuthRef("oauth", "remote", options)), Optional.empty(), List.of());
        AuthServices services = withUi ? new AuthServices(storage, Optional.of(new HeadlessAuthorizationUi()))
                : AuthServices.storedOnly(storage);
        TransportRequest request = TransportRequest.of("remote", config, temp).withAuth(services);
        return McpClient.connectBlocking(HttpTransports.httpProvider().open(request),
                ClientOptions.builder("oauth-test").initializeTimeout(TIMEOUT).requestTimeout(TIMEOUT).build());
    }

    private static String echo(McpClient client, String text) {
        ToolResult result = client.callToolBlocking("echo", McpJson.object().put("text", text));
        assertFalse(result.isError(), result.toString());
        return result.toString();
    }

    private McpException failure(Runnable action) {
        McpException e = assertThrows(McpException.class, action::run);
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return e;
    }

    private StoredCredential stored() {
        return storage.load("remote").orElseThrow();
    }

    @Test
    void aLoginIsStoredAndThenUsedWithoutTheUser() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder().scopesSupported(List.of("mcp:read", "mcp:write")));
        try (McpClient client = connect(server, true)) {
            assertEquals(1, client.listToolsBlocking().size());
            assertTrue(echo(client, "hello").contains("hello"));
        }
        Map<String, String> authorization = server.lastAuthorizationRequest().orElseThrow();
        assertEquals("S256", authorization.get("code_challenge_method"));
        assertEquals(server.mcpUrl(), authorization.get("resource"));
        assertEquals("mcp:read mcp:write", authorization.get("scope"));
        StoredCredential credential = stored();
        assertEquals(List.of("mcp:read", "mcp:write"), credential.scopes());
        assertTrue(credential.refreshToken().isPresent());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(storage.file("remote"))));

        // A background connect: no UI, the stored token, no new authorization.
        try (McpClient client = connect(server, false)) {
            assertTrue(echo(client, "again").contains("again"));
        }
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION));
        assertEquals(1, server.requests(Endpoint.REGISTRATION));
    }

    @Test
    void aTokenAboutToExpireIsRefreshedBeforeUse() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder().accessTokenLifetime(Duration.ofSeconds(2)));
        try (McpClient client = connect(server, true)) {
            echo(client, "first");
        }
        String first = stored().accessToken();
        Thread.sleep(2100);
        try (McpClient client = connect(server, false)) {
            echo(client, "second");
        }
        assertTrue(server.tokenRequests("refresh_token") >= 1);
        assertNotEquals(first, stored().accessToken());
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION));
        // The renewal came first: the MCP server never saw the expired token.
        assertEquals(0, server.responses(Endpoint.MCP, 401) - 1, "only the first connect met a 401");
    }

    @Test
    void aTokenRevokedMidSessionIsRefreshedAndTheCallGoesThrough() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        try (McpClient client = connect(server, true)) {
            echo(client, "before");
            String before = stored().accessToken();
            server.revokeAll();
            assertTrue(echo(client, "after").contains("after"));
            assertNotEquals(before, stored().accessToken());
        }
        assertEquals(1, server.tokenRequests("refresh_token"));
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION));
    }

    @Test
    void aFailedRefreshFallsBackToANewAuthorization() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        try (McpClient client = connect(server, true)) {
            echo(client, "before");
            server.failRefresh(true);
            server.revokeAll();
            assertTrue(echo(client, "after").contains("after"));
        }
        assertEquals(1, server.tokenRequests("refresh_token"));
        assertEquals(2, server.requests(Endpoint.AUTHORIZATION));
    }

    @Test
    void withoutAUserAFailedRefreshSaysHowToLogInAndKeepsTheCredential() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        try (McpClient client = connect(server, true)) {
            echo(client, "before");
        }
        StoredCredential before = stored();
        server.failRefresh(true);
        server.revokeAll();
        McpException e = failure(() -> connect(server, false).close());
        assertTrue(e.getMessage().contains("mcp-host auth login remote"), e.getMessage());
        assertEquals(before.accessToken(), stored().accessToken(), "a failed flow must not lose the credential");
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION));
    }

    @Test
    void aRedirectWithAnotherStateIsRefused() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder().tamperState(true));
        McpException e = failure(() -> connect(server, true).close());
        assertTrue(e.getMessage().contains("different state"), e.getMessage());
        assertEquals(0, server.tokenRequests("authorization_code"));
        assertTrue(storage.load("remote").isEmpty());
    }

    @Test
    void metadataForAnotherResourceIsRefusedBeforeAnyAuthorization() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder().prmResource("https://evil.example/mcp"));
        McpException e = failure(() -> connect(server, true).close());
        assertTrue(e.getMessage().contains("https://evil.example/mcp") && e.getMessage().contains("refusing"),
                e.getMessage());
        assertEquals(0, server.requests(Endpoint.AUTHORIZATION_SERVER_METADATA));
        assertEquals(0, server.requests(Endpoint.AUTHORIZATION));
    }

    @Test
    void repeatedInsufficientScopeStopsAfterThreeAuthorizations() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder().initializeWithoutAuth(true));
        try (McpClient client = connect(server, true)) {
            server.alwaysInsufficientScope(true);
            McpException e = failure(() -> client.listToolsBlocking());
            assertTrue(e.getMessage().contains("gave up after 3 authorizations"), e.getMessage());
        }
        // One more than the cap: the era probe (server/discover) needed a token where initialize did not.
        assertTrue(server.requests(Endpoint.AUTHORIZATION) <= OAuthClient.MAX_ATTEMPTS + 1,
                server.requests(Endpoint.AUTHORIZATION) + " authorizations");
    }

    @Test
    void aCorruptCredentialFileIsNamedAndNeverUsed() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        try (McpClient client = connect(server, true)) {
            echo(client, "before");
        }
        Path file = storage.file("remote");
        String token = stored().accessToken();
        Files.writeString(file, "{\"access_token\": \"" + token + "\", \"broken");
        McpException e = failure(() -> connect(server, false).close());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("mcp-host auth login remote"), e.getMessage());
        assertFalse(e.getMessage().contains(token));
    }

    @Test
    void aCredentialFileOthersCanReadIsRefused() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        try (McpClient client = connect(server, true)) {
            echo(client, "before");
        }
        Path file = storage.file("remote");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        int mcpRequests = server.requests(Endpoint.MCP);
        McpException e = failure(() -> connect(server, false).close());
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("chmod 600"), e.getMessage());
        // The token in the unsafe file was never sent.
        assertEquals(1, server.requests(Endpoint.MCP) - mcpRequests);
        assertEquals(1, server.responses(Endpoint.MCP, 401) - 1);
    }

    @Test
    void aCredentialThatCannotBeStoredStillServesTheSession() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        AuthStorage readOnly = new AuthStorage() {
            @Override
            public String id() {
                return "read-only";
            }

            @Override
            public Optional<StoredCredential> load(String credentialId) {
                return Optional.empty();
            }

            @Override
            public void save(String credentialId, StoredCredential credential) {
                throw new McpException("the disk is full");
            }

            @Override
            public boolean delete(String credentialId) {
                return false;
            }

            @Override
            public List<String> credentialIds() {
                return List.of();
            }
        };
        HttpServerConfig config = new HttpServerConfig(server.mcpUrl(), Map.of(), TIMEOUT, true, Optional.empty(),
                Optional.empty(), List.of());
        TransportRequest request = TransportRequest.of("remote", config, temp)
                .withAuth(new AuthServices(readOnly, Optional.of(new HeadlessAuthorizationUi())));
        try (McpClient client = McpClient.connectBlocking(HttpTransports.httpProvider().open(request),
                ClientOptions.builder("oauth-test").initializeTimeout(TIMEOUT).requestTimeout(TIMEOUT).build())) {
            assertTrue(echo(client, "kept in memory").contains("kept in memory"));
        }
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("could not be stored: the disk is full"));
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION));
    }

    @Test
    void aLegacySseServerLogsInAndRenewsToo() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        SseServerConfig config = new SseServerConfig(server.sseUrl(), Map.of(), TIMEOUT, true,
                Optional.of(new ServerConfig.AuthRef("oauth", "remote")), Optional.empty(), List.of());
        TransportRequest request = TransportRequest.of("remote", config, temp)
                .withAuth(new AuthServices(storage, Optional.of(new HeadlessAuthorizationUi())));
        try (McpClient client = McpClient.connectBlocking(HttpTransports.sseProvider().open(request),
                ClientOptions.builder("oauth-test").initializeTimeout(TIMEOUT).requestTimeout(TIMEOUT).build())) {
            assertEquals(1, client.listToolsBlocking().size());
            assertTrue(echo(client, "over sse").contains("over sse"));
            server.revokeAll();
            assertTrue(echo(client, "after revocation").contains("after revocation"));
        }
        assertEquals(server.sseUrl(), server.lastAuthorizationRequest().orElseThrow().get("resource"));
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION));
        assertEquals(1, server.tokenRequests("refresh_token"));
        assertEquals(server.sseUrl(), stored().attribute(StoredCredential.RESOURCE).orElseThrow());
    }

    /**
     * SEP-2352 with two real authorization servers: the resource moves from its own to another one and back.
     * The move is found by discovery after the old server's (refreshed) token is refused again; mcp-host then
     * registers at the new one (never sending it the old client id: the testkit records an unknown client as an
     * error), and keeps each registration under its issuer, so that moving back uses the first one again.
     */
    @Test
    void aResourceThatMovesToAnotherAuthorizationServerRegistersThereAndKeepsRegistrationsByIssuer()
            throws Exception {
        AuthTestServer resource = server(AuthTestServer.builder());
        AuthTestServer other = server(AuthTestServer.builder());
        try (McpClient client = connect(resource, true)) {
            assertTrue(echo(client, "first").contains("first"));
            resource.useAuthorizationServer(other);
            assertTrue(echo(client, "moved").contains("moved"));
            assertEquals(other.issuer(), stored().attribute(StoredCredential.ISSUER).orElseThrow());
            resource.useAuthorizationServer(resource);
            assertTrue(echo(client, "back").contains("back"));
        }
        assertEquals(1, resource.requests(Endpoint.REGISTRATION), "the first registration was used again");
        assertEquals(1, other.requests(Endpoint.REGISTRATION));
        assertEquals(2, resource.requests(Endpoint.AUTHORIZATION));
        assertEquals(1, other.requests(Endpoint.AUTHORIZATION));
        assertEquals(List.of(), resource.errors());
        assertEquals(List.of(), other.errors());
        StoredCredential credential = stored();
        assertEquals(resource.issuer(), credential.attribute(StoredCredential.ISSUER).orElseThrow());
        String first = credential.attribute("client_id@" + resource.issuer()).orElseThrow();
        String second = credential.attribute("client_id@" + other.issuer()).orElseThrow();
        assertNotEquals(first, second);
        assertEquals(first, credential.attribute(StoredCredential.CLIENT_ID).orElseThrow());
        // And it survives the file store: a new run finds both.
        assertEquals(second, new FileAuthStorage(storage.directory()).load("remote").orElseThrow()
                .attribute("client_id@" + other.issuer()).orElseThrow());
    }

    /** A credential file written before registrations were kept by issuer still gives its registration. */
    @Test
    void aCredentialOfTheEarlierFormatKeepsItsRegistration() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        try (McpClient client = connect(server, true)) {
            echo(client, "first");
        }
        StoredCredential current = stored();
        java.util.Map<String, String> flat = new java.util.LinkedHashMap<>(current.attributes());
        flat.keySet().removeIf(name -> name.contains("@"));
        storage.save("remote", new StoredCredential(current.accessToken(), current.tokenType(), Optional.empty(),
                current.expiresAt(), current.scopes(), current.obtainedAt(), flat));
        server.revokeAll();
        try (McpClient client = connect(server, true)) {
            echo(client, "again");
        }
        assertEquals(2, server.requests(Endpoint.AUTHORIZATION), "no refresh token: a new authorization");
        assertEquals(1, server.requests(Endpoint.REGISTRATION), "with the registration of the old file");
        assertEquals(List.of(), server.errors());
        assertTrue(stored().attribute("client_id@" + server.issuer()).isPresent());
    }

    /** A pre-registered client bound to one issuer (auth.issuer) is not used with another: the user is told. */
    @Test
    void aPreRegisteredClientOfAnotherIssuerIsRefusedWithTheFix() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        McpException e = failure(() -> connect(server, true, Map.of("clientId", "registered-elsewhere",
                "issuer", "https://as.elsewhere.example")).close());
        assertTrue(e.getMessage().contains("auth.issuer"), e.getMessage());
        assertTrue(e.getMessage().contains(server.issuer()), e.getMessage());
        assertEquals(0, server.requests(Endpoint.AUTHORIZATION));
        assertEquals(0, server.requests(Endpoint.TOKEN));
    }

    /** An owner that names its authorization server's metadata (Claude Code's authServerMetadataUrl) gets it from there. */
    @Test
    void theMetadataUrlOfTheConfigIsUsedInsteadOfDiscovery() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        McpException e = failure(() -> connect(server, true, Map.of("authServerMetadataUrl",
                server.issuer() + "/no-such-metadata")).close());
        assertTrue(e.getMessage().contains("authServerMetadataUrl"), e.getMessage());
        assertEquals(0, server.requests(Endpoint.AUTHORIZATION_SERVER_METADATA), "nothing else was tried");

        try (McpClient client = connect(server, true, Map.of("authServerMetadataUrl",
                server.authorizationServerMetadataUrl()))) {
            assertTrue(echo(client, "hello").contains("hello"));
        }
        assertEquals(1, server.requests(Endpoint.AUTHORIZATION_SERVER_METADATA));
    }

    /** Codex's oauth_resource: the resource indicator asked for is the configured one, not the metadata's. */
    @Test
    void theResourceOfTheConfigIsTheOneAskedFor() throws Exception {
        AuthTestServer server = server(AuthTestServer.builder());
        McpException e = failure(() -> connect(server, true, Map.of("resource", "https://resource.example/api"))
                .close());
        assertEquals("https://resource.example/api", server.lastAuthorizationRequest().orElseThrow().get("resource"));
        assertTrue(e.getMessage().contains("invalid_target"), e.getMessage());
    }

    /** Writes to two streams. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream first;
        private final java.io.OutputStream second;

        TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public synchronized void write(int b) throws IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }
}
