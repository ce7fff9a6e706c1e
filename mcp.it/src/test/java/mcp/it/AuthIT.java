package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.it.Cli.Run;
import mcp.testkit.AuthTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * OAuth from the user's side: the runtime image's {@code mcp-host} against the testkit's
 * authorization server and protected MCP server on 127.0.0.1. Without a login, {@code tools} says how
 * to log in; {@code auth login --headless} logs in; {@code tools}, {@code call} and {@code auth status}
 * then work from the stored credential; {@code auth logout} forgets it. No token, code or client
 * secret the server issued appears in any output (with the debug log on) or in any file but the
 * credential store (the tool cache included).
 */
class AuthIT {

    @TempDir
    Path temp;

    private AuthTestServer server;
    private Path home;
    private Path credentials;
    private Path cache;
    private Path config;
    private final List<Run> runs = new ArrayList<>();

    @BeforeEach
    void fixture() throws IOException {
        server = AuthTestServer.builder().scopesSupported(List.of("mcp:read", "mcp:write")).start();
        home = Files.createDirectories(temp.resolve("home"));
        credentials = temp.resolve("credentials");
        cache = temp.resolve("cache");
        config = temp.resolve("remote.json");
        Files.writeString(config, """
                {"mcpServers": {"remote": {"type": "http", "url": %s}}}
                """.formatted(McpJson.mapper().writeValueAsString(server.mcpUrl())));
    }

    @AfterEach
    void nothingLeaked() throws IOException {
        try {
            StringBuilder everything = new StringBuilder();
            runs.forEach(run -> everything.append(run.out()).append(run.err()));
            try (Stream<Path> walk = Files.walk(temp)) {
                for (Path file : walk.filter(Files::isRegularFile).toList()) {
                    if (!file.startsWith(credentials)) {
                        everything.append(Files.readString(file));
                    }
                }
            }
            assertFalse(server.issuedSecrets().isEmpty(), "the server issued nothing: the test proves nothing");
            for (String secret : server.issuedSecrets()) {
                assertFalse(everything.toString().contains(secret), "an issued secret leaked into an output or a file");
            }
        } finally {
            server.close();
        }
    }

    private Run cli(String... args) {
        List<String> command = new ArrayList<>(List.of("--config", config.toString(), "--cache-dir", cache.toString()));
        command.addAll(List.of(args));
        Run run = Cli.run(home, temp, Map.of("MCP_HOST_CREDENTIALS_DIR", credentials.toString()),
                command.toArray(String[]::new));
        runs.add(run);
        return run;
    }

    @Test
    void loginOnceThenEveryCommandWorks() {
        Run before = cli("tools", "--json");
        assertEquals(0, before.exitCode(), before.toString());
        String error = before.json().path("errors").path("remote").asString("");
        assertTrue(error.contains("mcp-host auth login remote"), before.toString());
        assertEquals(0, server.requests(AuthTestServer.Endpoint.AUTHORIZATION), "a background load asked the user");

        Run login = cli("-v", "auth", "login", "remote", "--headless");
        assertEquals(0, login.exitCode(), login.toString());
        assertTrue(login.out().contains("Logged in to remote (1 tool)"), login.toString());
        assertEquals(1, server.requests(AuthTestServer.Endpoint.AUTHORIZATION));

        Run tools = cli("-v", "tools", "--json");
        assertEquals(0, tools.exitCode(), tools.toString());
        assertTrue(tools.json().path("errors").isEmpty(), tools.toString());
        List<String> names = new ArrayList<>();
        tools.json().path("tools").forEach(tool -> names.add(tool.path("name").asString()));
        assertEquals(List.of("mcp_remote_echo"), names, tools.toString());

        Run call = cli("call", "mcp_remote_echo", "{\"text\": \"through OAuth\"}");
        assertEquals(0, call.exitCode(), call.toString());
        assertTrue(call.out().contains("through OAuth"), call.toString());

        Run status = cli("auth", "status");
        assertEquals(0, status.exitCode(), status.toString());
        assertTrue(status.out().contains("remote") && status.out().contains("mcp:read mcp:write"), status.toString());
        JsonNode json = cli("auth", "status", "--json").json();
        assertEquals("remote", json.get(0).path("credentialId").asString(), json.toString());
        assertTrue(json.get(0).path("refreshToken").asBoolean(), json.toString());
        assertEquals(1, server.requests(AuthTestServer.Endpoint.AUTHORIZATION), "the stored credential was not reused");

        Run logout = cli("auth", "logout", "remote");
        assertEquals(0, logout.exitCode(), logout.toString());
        // Without the cache: cached tools would be listed as deferred while the connect fails behind them.
        Run after = cli("tools", "--json", "--no-cache");
        assertTrue(after.json().path("errors").path("remote").asString("").contains("mcp-host auth login remote"),
                after.toString());
    }

    @Test
    void aRevokedTokenIsRenewedByABackgroundLoad() {
        assertEquals(0, cli("auth", "login", "remote", "--headless").exitCode());
        server.revokeAll();
        Run call = cli("call", "mcp_remote_echo", "{\"text\": \"renewed\"}");
        assertEquals(0, call.exitCode(), call.toString());
        assertTrue(call.out().contains("renewed"), call.toString());
        assertEquals(1, server.tokenRequests("refresh_token"));
        assertEquals(1, server.requests(AuthTestServer.Endpoint.AUTHORIZATION));
    }
}
