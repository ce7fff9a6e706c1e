package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.Providers;
import mcp.testkit.AuthTestServer;
import mcp.testkit.AuthTestServer.Endpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pre-registered OAuth client that an owner's entry names, used for real: each agent's file, as the agent
 * writes it, is discovered by mcp-host, which then logs in at the testkit's authorization server with the
 * headless UI. The server knows only that client (no Dynamic Client Registration) and holds it to the redirect URI
 * the agent itself registers, character for character, port included: a login succeeds only with the client id,
 * the secret, the host name, the path and the fixed callback port of the owner's entry.
 */
class OwnerOAuthTest {

    private static final Duration GATE = Duration.ofSeconds(20);

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    private AuthTestServer server;
    private AuthStorage storage;

    @BeforeEach
    void dirs() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        storage = AuthStorage.inMemory();
    }

    @AfterEach
    void nothingLeaked() throws IOException {
        if (server == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(temp)) {
            StringBuilder written = new StringBuilder();
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (!file.getFileName().toString().equals(".credentials.json")) {
                    written.append(Files.readString(file));
                }
            }
            for (String secret : server.issuedSecrets()) {
                if (!secret.startsWith("given-")) {
                    assertFalse(written.toString().contains(secret), "a secret was written outside the store");
                }
            }
        } finally {
            server.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static AuthorizationUi headless() {
        return Providers.require(AuthorizationUi.class, Providers.byId(AuthorizationUi.class,
                Providers.load(AuthorizationUi.class, OwnerOAuthTest.class.getClassLoader()), AuthorizationUi::id),
                "headless");
    }

    /** Loads every server the files name, logging in with the headless UI; the load's errors, by server. */
    private LoadResult load(Map<String, String> extraEnvironment) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("PATH", System.getenv("PATH"));
        env.putAll(extraEnvironment);
        try (McpHost host = McpHost.builder().home(home).workingDirectory(project).environment(env).cache(false)
                .authStorage(storage).authorizationUi(headless()).startupGate(GATE).build()) {
            LoadResult load = host.load();
            assertEquals(Map.of(), load.errors());
            return load;
        }
    }

    private void assertLoggedInAs(String clientId, String redirectUri) {
        Map<String, String> authorization = server.lastAuthorizationRequest().orElseThrow();
        assertEquals(clientId, authorization.get("client_id"));
        assertEquals(redirectUri, authorization.get("redirect_uri"));
        assertEquals(redirectUri, server.lastTokenRequest().orElseThrow().get("redirect_uri"));
        assertEquals(0, server.requests(Endpoint.REGISTRATION), "no Dynamic Client Registration");
        assertEquals(List.of(), server.errors());
        assertTrue(storage.load("corp").isPresent(), "the credential is stored under the server's name");
    }

    private static String sha256Hex(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void claudeCodesClientIdCallbackPortAndStoredSecretAreUsed() throws Exception {
        int port = freePort();
        String redirect = "http://localhost:" + port + "/callback";
        server = AuthTestServer.builder().dynamicRegistration(false).scopesSupported(List.of("mcp:read", "mcp:write"))
                .preRegisteredClient("claude-client", "given-claude-secret", "client_secret_basic", List.of(redirect))
                .start();
        // As `claude mcp add --transport http --client-id claude-client --client-secret --callback-port PORT -s user`
        // writes it: the block in ~/.claude.json, the secret in ~/.claude/.credentials.json.
        String url = McpJson.mapper().writeValueAsString(server.mcpUrl());
        Files.writeString(home.resolve(".claude.json"), """
                {"mcpServers": {"corp": {"type": "http", "url": %s,
                  "oauth": {"clientId": "claude-client", "callbackPort": %d, "scopes": "mcp:read mcp:write"}}}}
                """.formatted(url, port));
        String key = "corp|" + sha256Hex("{\"type\":\"http\",\"url\":" + url + ",\"headers\":{}}").substring(0, 16);
        Files.createDirectories(home.resolve(".claude"));
        Files.writeString(home.resolve(".claude/.credentials.json"), McpJson.mapper().writeValueAsString(
                Map.of("mcpOAuthClientConfig", Map.of(key, Map.of("clientSecret", "given-claude-secret")))));

        LoadResult load = load(Map.of());
        assertEquals(1, load.tools().size());
        assertLoggedInAs("claude-client", redirect);
        assertEquals("mcp:read mcp:write", server.lastAuthorizationRequest().orElseThrow().get("scope"));
    }

    @Test
    void claudeCodesCallbackPortVariableWinsOverTheEntrysPort() throws Exception {
        int port = freePort();
        String redirect = "http://localhost:" + port + "/callback";
        server = AuthTestServer.builder().dynamicRegistration(false)
                .preRegisteredClient("public-client", null, "none", List.of(redirect)).start();
        Files.writeString(home.resolve(".claude.json"), """
                {"mcpServers": {"corp": {"type": "http", "url": %s,
                  "oauth": {"clientId": "public-client", "callbackPort": 1}}}}
                """.formatted(McpJson.mapper().writeValueAsString(server.mcpUrl())));
        load(Map.of("MCP_OAUTH_CALLBACK_PORT", Integer.toString(port)));
        assertLoggedInAs("public-client", redirect);
    }

    @Test
    void codexsClientCallbackPortScopesAndCallbackIdAreUsed() throws Exception {
        int port = freePort();
        server = AuthTestServer.builder().dynamicRegistration(false).scopesSupported(List.of("mcp:read", "mcp:write"))
                .start();
        // Codex ends the callback path with the server's id: base64url of the first 9 bytes of its URL's SHA-256.
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(MessageDigest
                .getInstance("SHA-256").digest(server.mcpUrl().getBytes(StandardCharsets.UTF_8)), 9));
        String redirect = "http://127.0.0.1:" + port + "/callback/" + id;
        server.preRegisterClient("codex-client", "given-codex-secret", "client_secret_basic", List.of(redirect));
        // As `codex mcp add corp --url URL --oauth-client-id codex-client --oauth-client-secret ...` writes it, with
        // the scopes and the global callback port set by hand, as Codex's documentation shows them.
        Files.createDirectories(home.resolve(".codex"));
        Files.writeString(home.resolve(".codex/config.toml"), """
                mcp_oauth_callback_port = %d

                [mcp_servers.corp]
                url = "%s"
                scopes = ["mcp:read"]

                [mcp_servers.corp.oauth]
                client_id = "codex-client"
                client_secret = "given-codex-secret"
                """.formatted(port, server.mcpUrl()));
        load(Map.of());
        assertLoggedInAs("codex-client", redirect);
        assertEquals("mcp:read", server.lastAuthorizationRequest().orElseThrow().get("scope"));
    }

    @Test
    void geminisEndpointsSecretFromTheEnvironmentAndRedirectUriAreUsed() throws Exception {
        int port = freePort();
        String redirect = "http://localhost:" + port + "/oauth/callback";
        server = AuthTestServer.builder().dynamicRegistration(false)
                .preRegisteredClient("gemini-client", "given-gemini-secret", "client_secret_post", List.of(redirect))
                .start();
        Files.createDirectories(home.resolve(".gemini"));
        // Gemini CLI runs nothing in a folder its user has not trusted.
        Files.writeString(home.resolve(".gemini/trustedFolders.json"),
                McpJson.mapper().writeValueAsString(Map.of(project.toString(), "TRUST_FOLDER")));
        Files.writeString(home.resolve(".gemini/settings.json"), """
                {"mcpServers": {"corp": {"httpUrl": "%s",
                  "oauth": {"enabled": true, "clientId": "gemini-client", "clientSecret": "$CORP_CLIENT_SECRET",
                            "authorizationUrl": "%s/authorize", "tokenUrl": "%s/token"}}}}
                """.formatted(server.mcpUrl(), server.issuer(), server.issuer()));
        load(Map.of("CORP_CLIENT_SECRET", "given-gemini-secret", "OAUTH_CALLBACK_PORT", Integer.toString(port)));
        assertLoggedInAs("gemini-client", redirect);
        assertEquals(0, server.requests(Endpoint.PROTECTED_RESOURCE_METADATA), "the entry names the endpoints");
        assertEquals(0, server.requests(Endpoint.AUTHORIZATION_SERVER_METADATA), "the entry names the endpoints");
    }
}
