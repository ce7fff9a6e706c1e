package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.CallPolicy.Decision;
import mcp.api.McpJson;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.ToolDefinition;
import mcp.api.ToolRule;
import mcp.api.ToolRule.Match;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GeminiSourceTest {

    private final GeminiSource source = new GeminiSource();

    @Test
    void mapsGeminiFields(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context());

        assertEquals(List.of(), result.problems());
        assertEquals(List.of("project-gemini", "pythonTools", "httpServer", "sseServer"), names(result));
        assertSource(source, f.app.resolve(".gemini/settings.json"), Level.PROJECT, "/mcpServers/project-gemini",
                server(result, "project-gemini"));

        Path userFile = f.home.resolve(".gemini/settings.json");
        ServerSpec python = server(result, "pythonTools");
        assertSource(source, userFile, Level.USER, "/mcpServers/pythonTools", python);
        assertEquals(Optional.of("python"), python.command());
        assertEquals(List.of("-m", "my_mcp_server", "--port", "8080"), python.args());
        assertEquals(Optional.of("./mcp-servers/python"), python.cwd());
        assertEquals(Map.of("DATABASE_URL", "${DB_CONNECTION_STRING}", "API_KEY", "${EXTERNAL_API_KEY}"), python.env(),
                "Gemini's bare $NAME becomes ${NAME}");
        assertEquals(Optional.of(15_000L), python.timeoutMillis());
        assertEquals(List.of(new ToolRule(Decision.DENY, new Match.AllBut(Set.of("safe_tool", "file_reader")),
                "Gemini CLI", "mcpServers.pythonTools.includeTools (not listed)", Optional.of(userFile))),
                python.toolPolicy().rules(), "trust: false decides nothing");
        assertEquals(Optional.empty(), python.type());

        ServerSpec http = server(result, "httpServer");
        assertEquals(Optional.of("http"), http.type());
        assertEquals(Optional.of("http://localhost:3000/mcp"), http.url());
        assertEquals(Map.of("Authorization", "Bearer ${API_TOKEN}"), http.headers());
        assertEquals(Optional.of(5_000L), http.timeoutMillis());

        ServerSpec untyped = server(result, "sseServer");
        assertEquals(Optional.of("http"), untyped.type(),
                "a url without type is Streamable HTTP first in Gemini CLI 0.61.0, whatever the entry's name says");
        assertEquals(Optional.of("http://localhost:8080/sse"), untyped.url());
        assertEquals(List.of(new ToolRule(Decision.DENY, new Match.Named(Set.of("dangerous_tool")), "Gemini CLI",
                "mcpServers.sseServer.excludeTools", Optional.of(userFile))), untyped.toolPolicy().rules());
    }

    @Test
    void httpUrlWinsOverUrlAndTypeAndOnlySseOpensAStream(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInGemini();
        f.write(f.app.resolve(".gemini/settings.json"), "{\"mcpServers\": {"
                + "\"both\": {\"httpUrl\": \"http://h\", \"url\": \"http://s\"},"
                + "\"http-url-typed-sse\": {\"httpUrl\": \"http://hs\", \"type\": \"sse\"},"
                + "\"url\": {\"url\": \"http://u\"},"
                + "\"url-sse\": {\"url\": \"http://us\", \"type\": \"sse\"},"
                + "\"url-stdio\": {\"url\": \"http://ux\", \"type\": \"stdio\"},"
                + "\"url-other\": {\"url\": \"http://uo\", \"type\": \"streamable-http\"},"
                + "\"typed\": {\"type\": \"http\", \"url\": \"http://t\"},"
                + "\"endpoint-wins\": {\"command\": \"false\", \"args\": [\"x\"], \"url\": \"http://e\"},"
                + "\"dollars\": {\"command\": \"$CMD\", \"args\": [\"$1\", \"a$\", \"${KEEP}\", \"$A_B-c\"]}}}");

        Result result = source.discover(f.context());
        assertEquals(Optional.of("http://h"), server(result, "both").url());
        assertEquals(Optional.of("http"), server(result, "both").type());
        assertEquals(Optional.of("http"), server(result, "typed").type());
        // Gemini CLI 0.61.0's createUrlTransport: httpUrl is Streamable HTTP before type is looked at; a url is SSE
        // with type "sse" only, and Streamable HTTP with no type or any other.
        assertEquals(Optional.of("http"), server(result, "http-url-typed-sse").type());
        assertEquals(Optional.of("http://hs"), server(result, "http-url-typed-sse").url());
        assertEquals(Optional.of("http"), server(result, "url").type());
        assertEquals(Optional.of("sse"), server(result, "url-sse").type());
        assertEquals(Optional.of("http"), server(result, "url-stdio").type());
        assertEquals(Optional.of("http"), server(result, "url-other").type());
        // gemini mcp list 0.61.0 showed such an entry by its url: the endpoint wins over the command.
        assertEquals(Optional.empty(), server(result, "endpoint-wins").command());
        assertEquals(List.of(), server(result, "endpoint-wins").args());
        assertEquals(Optional.of("http://e"), server(result, "endpoint-wins").url());
        assertEquals(Optional.of("${CMD}"), server(result, "dollars").command());
        assertEquals(List.of("$1", "a$", "${KEEP}", "${A_B}-c"), server(result, "dollars").args());
    }

    /**
     * As Gemini CLI 0.61.0 offered the tools to its model (scenario gemini-tools of interop/agents/regenerate.sh): with
     * --yolo every tool the lists leave, in headless mode without it only those it runs without confirmation.
     */
    @Test
    void toolListsWithholdAndTrustOrMcpAllowedRunWithoutConfirmation(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInGemini();
        Path user = f.write(f.home.resolve(".gemini/settings.json"), "{\"mcpServers\": {"
                + "\"inc\": {\"command\": \"x\", \"trust\": true, \"includeTools\": [\"a\", \"b(x)\", \"c\"],"
                + " \"excludeTools\": [\"c\"]},"
                + "\"exc\": {\"command\": \"x\", \"excludeTools\": [\"a(x)\", \"b\"]},"
                + "\"plain\": {\"command\": \"x\", \"trust\": false}}}");
        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        assertEquals(Map.of("a", "allow", "b", "allow", "c", "deny", "d", "deny"), decisions(server(result, "inc"),
                "a", "b", "c", "d"), "an exclusion wins; b(x) includes b");
        assertEquals(Map.of("a", "default", "b", "deny"), decisions(server(result, "exc"), "a", "b"),
                "an exclusion is by exact name");
        assertEquals(Map.of("a", "default"), decisions(server(result, "plain"), "a"));
        assertEquals("Gemini CLI: mcpServers.inc.trust in " + user, server(result, "inc").toolPolicy()
                .decide(ToolDefinition.of("a", null, McpJson.object())).describe());

        f.write(user, "{\"mcpServers\": {\"allowed\": {\"command\": \"x\"}, \"other\": {\"command\": \"x\"}},"
                + " \"mcp\": {\"allowed\": [\"allowed\"]}}");
        result = source.discover(f.context());
        assertEquals(Map.of("a", "allow"), decisions(server(result, "allowed"), "a"),
                "mcp.allowed lets the servers it names run their tools without confirmation");
        assertEquals("Gemini CLI: mcp.allowed in " + user, server(result, "allowed").toolPolicy()
                .decide(ToolDefinition.of("a", null, McpJson.object())).describe());
    }

    /** @return each tool to deny, ask, allow or default (nothing decided) */
    private static Map<String, String> decisions(ServerSpec server, String... tools) {
        Map<String, String> decisions = new java.util.LinkedHashMap<>();
        for (String tool : tools) {
            mcp.api.CallPolicy policy = server.toolPolicy().decide(ToolDefinition.of(tool, null, McpJson.object()));
            decisions.put(tool, policy.decidedByOwner() ? policy.decision().id() : "default");
        }
        return decisions;
    }

    // ---- the owner's auth settings ----

    @Test
    void anOAuthBlockIsTheServersClientWithItsSecretFromTheEnvironment(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInGemini();
        // As Gemini CLI's documentation writes the block: the endpoints named, the secret kept in a variable.
        Path file = f.write(f.home.resolve(".gemini/settings.json"), """
                {"mcpServers": {
                  "corp": {"httpUrl": "https://mcp.corp.example/mcp",
                           "oauth": {"enabled": true, "clientId": "gemini-cid", "clientSecret": "$CORP_SECRET",
                                     "authorizationUrl": "https://login.corp.example/authorize",
                                     "tokenUrl": "https://login.corp.example/token",
                                     "scopes": ["mcp:read", "mcp:write"], "audiences": ["corp-api"]}},
                  "own-redirect": {"url": "https://other.example/mcp",
                           "oauth": {"clientId": "c2", "redirectUri": "http://127.0.0.1:7777/done"}},
                  "stdio": {"command": "srv", "oauth": {"clientId": "unused"}}}}
                """);
        Result result = source.discover(f.context(Map.of("CORP_SECRET", "s3cr3t", "OAUTH_CALLBACK_PORT", "7788")));
        assertEquals(Map.of("clientId", "gemini-cid", "clientSecret", "s3cr3t", "tokenEndpointAuthMethod",
                "client_secret_post", "authorizationEndpoint", "https://login.corp.example/authorize", "tokenEndpoint",
                "https://login.corp.example/token", "scope", "mcp:read mcp:write", "redirectUri",
                "http://localhost/oauth/callback", "callbackPort", "7788"), server(result, "corp").auth().orElseThrow()
                .options());
        assertEquals(Map.of("clientId", "c2", "redirectUri", "http://127.0.0.1:7777/done", "callbackPort", "7788"),
                server(result, "own-redirect").auth().orElseThrow().options(), "its redirect URI's own port wins");
        assertEquals(Optional.empty(), server(result, "stdio").auth());
        assertEquals(List.of(new Problem(file, "/mcpServers/corp/oauth/audiences", "corp", "\"oauth.audiences\" (an"
                + " audience parameter Gemini CLI adds to the OAuth requests) is not supported by mcp-host; the requests"
                + " go without it")), result.problems());
    }
}
