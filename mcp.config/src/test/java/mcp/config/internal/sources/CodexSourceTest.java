package mcp.config.internal.sources;

import static mcp.config.internal.sources.Fixture.assertSource;
import static mcp.config.internal.sources.Fixture.names;
import static mcp.config.internal.sources.Fixture.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.CallPolicy.Decision;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata.Level;
import mcp.api.ToolRule;
import mcp.api.ToolRule.Match;
import mcp.api.spi.CapabilitySource.Problem;
import mcp.api.spi.CapabilitySource.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CodexSourceTest {

    private final CodexSource source = new CodexSource();

    @Test
    void mapsCodexFieldsToServerSpecs(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Result result = source.discover(f.context(Map.of("FIGMA_OAUTH_TOKEN", "f1gma", "FIGMA_ORG_ID", "org-7")));

        assertEquals(List.of(), result.problems());
        assertEquals(List.of("docs", "context7", "figma"), names(result));

        ServerSpec docs = server(result, "docs");
        assertSource(source, f.app.resolve(".codex/config.toml"), Level.PROJECT, "/mcp_servers/docs", docs);
        assertEquals(Optional.of("docs-mcp"), docs.command());
        assertEquals(Optional.of("tools/docs"), docs.cwd());
        assertEquals(Optional.of(90_000L), docs.timeoutMillis(), "startup_timeout_ms");
        assertEquals(Optional.of(12_500L), docs.toolTimeoutMillis(), "tool_timeout_sec");
        assertEquals(Optional.of(mcp.api.OwnerState.Kind.TRUSTED), docs.owner().map(mcp.api.OwnerState::kind),
                "a project server records the trust it ran on");

        Path userFile = f.home.resolve(".codex/config.toml");
        ServerSpec context7 = server(result, "context7");
        assertSource(source, userFile, Level.USER, "/mcp_servers/context7", context7);
        assertEquals(Optional.empty(), context7.type(), "inferred later from command or url");
        assertEquals(Optional.of("npx"), context7.command());
        assertEquals(List.of("-y", "@upstash/context7-mcp"), context7.args());
        assertEquals(Map.of("LOG_LEVEL", "info", "RETRIES", "3"), context7.env());
        List<String> inherited = new java.util.ArrayList<>(CodexSource.DEFAULT_ENV_VARS);
        inherited.addAll(List.of("CONTEXT7_API_KEY", "LOG_LEVEL"));
        assertEquals(Optional.of(inherited), context7.inheritedEnv(), "Codex's few variables and the env_vars");
        assertFalse(context7.expandVariables(), "Codex passes values as written");
        assertEquals(Optional.of(20_000L), context7.timeoutMillis());
        assertEquals(Optional.of(60_000L), context7.toolTimeoutMillis());
        assertEquals(Optional.empty(), context7.enabledTools(), "Codex's tool lists are its decisions, not filters");
        assertEquals(List.of(new ToolRule(Decision.DENY, new Match.AllBut(Set.of("resolve-library-id",
                "get-library-docs")), "Codex", "mcp_servers.context7.enabled_tools (not listed)", Optional.of(userFile))),
                context7.toolPolicy().rules());
        assertTrue(context7.toolPolicy().denial("query-docs").isPresent());
        assertEquals(Optional.empty(), context7.toolPolicy().denial("get-library-docs"));
        assertEquals(Optional.empty(), context7.enabled());
        assertEquals(Optional.empty(), context7.owner(), "the user's own entry needs no one's decision");

        ServerSpec figma = server(result, "figma");
        assertSource(source, userFile, Level.USER, "/mcp_servers/figma", figma);
        assertEquals(Optional.of("https://mcp.figma.com/mcp"), figma.url());
        assertEquals(Map.of("X-Figma-Region", "us-east-1", "X-Org-Id", "org-7", "Authorization", "Bearer f1gma"),
                figma.headers(), "Codex reads the variables itself");
        assertEquals(Optional.of(false), figma.enabled());
        assertEquals(List.of(), figma.disabledTools());
        assertEquals(List.of(new ToolRule(Decision.DENY, new Match.Named(Set.of("delete_file")), "Codex",
                "mcp_servers.figma.disabled_tools", Optional.of(userFile))), figma.toolPolicy().rules());
        assertEquals(Optional.empty(), figma.timeoutMillis());
    }

    @Test
    void anUnsetHeaderVariableLeavesTheHeaderOutAndAnUnsetBearerVariableTheServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInCodex();
        Path file = f.write(f.app.resolve(".codex/config.toml"), "[mcp_servers.api]\nurl = \"https://x\"\n"
                + "env_http_headers = { X-Set = \"SET\", X-Unset = \"UNSET\", X-Blank = \"BLANK\" }\n"
                + "[mcp_servers.bearer]\nurl = \"https://y\"\nbearer_token_env_var = \"UNSET\"\n"
                + "[mcp_servers.literal]\ncommand = \"${HOME}/bin/x\"\nargs = [\"${SET}\"]\n");

        Result result = source.discover(f.context(Map.of("SET", "v", "BLANK", "  ")));
        assertEquals(Map.of("X-Set", "v"), server(result, "api").headers());
        assertEquals(List.of(new Problem(file, "/mcp_servers/bearer/bearer_token_env_var", "bearer",
                "environment variable \"UNSET\" (bearer_token_env_var) is not set or empty; Codex does not start the server")),
                result.problems());
        assertEquals(List.of("api", "literal"), names(result));
        assertEquals(Optional.of("${HOME}/bin/x"), server(result, "literal").command());
        assertFalse(server(result, "literal").expandVariables());
    }

    @Test
    void envVarsMayBeTablesWithAName(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInCodex();
        Path file = f.write(f.app.resolve(".codex/config.toml"), "[mcp_servers.a]\ncommand = \"a\"\n"
                + "env_vars = [\"PLAIN\", { name = \"TABLE\", source = \"local\" }]\n"
                + "[mcp_servers.b]\ncommand = \"b\"\nenv_vars = [{ name = \"R\", source = \"remote\" }]\n");

        Result result = source.discover(f.context());
        assertEquals(List.of("a"), names(result));
        assertEquals(List.of("PLAIN", "TABLE"), server(result, "a").inheritedEnv().orElseThrow()
                .subList(CodexSource.DEFAULT_ENV_VARS.size(), CodexSource.DEFAULT_ENV_VARS.size() + 2));
        assertEquals("/mcp_servers/b/env_vars/0", result.problems().get(0).location());
        assertEquals(file, result.problems().get(0).file());
    }

    @Test
    void codexHomeMovesTheUserFileWhenItIsAbsolute(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path codexHome = f.root.resolve("codex-home");
        Path file = f.write(codexHome.resolve("config.toml"), "[mcp_servers.elsewhere]\ncommand = \"x\"\n");

        Result result = source.discover(f.context(Map.of("CODEX_HOME", codexHome.toString())));
        assertEquals(List.of("elsewhere"), names(result));
        assertEquals(List.of("docs"), result.inactive().stream().map(i -> i.server().name()).toList(),
                "the trust is read from the user file that counts, which does not trust the folder");
        assertSource(source, file, Level.USER, "/mcp_servers/elsewhere", server(result, "elsewhere"));

        assertEquals(List.of("docs", "context7", "figma"), names(source.discover(f.context(Map.of("CODEX_HOME", "codex-home")))),
                "a relative CODEX_HOME is ignored");
    }

    @Test
    void anAuthorizationHeaderIsReplacedByTheBearerTokenWhateverItsCase(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInCodex();
        f.write(f.app.resolve(".codex/config.toml"), "[mcp_servers.api]\nurl = \"https://x\"\n"
                + "bearer_token_env_var = \"TOKEN\"\nhttp_headers = { authorization = \"Basic abc\", Accept = \"*/*\" }\n");

        ServerSpec api = server(source.discover(f.context(Map.of("TOKEN", "t"))), "api");
        assertEquals(Map.of("Authorization", "Bearer t", "Accept", "*/*"), api.headers());
    }

    @Test
    void badTomlIsOneProblemWithItsPosition(@TempDir Path dir) {
        Fixture f = Fixture.copy(dir);
        Path file = f.write(f.app.resolve(".codex/config.toml"), "[mcp_servers.docs]\ncommand = docs-mcp\n");

        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(file, "2:11", "", "invalid TOML: Unknown token")), result.problems());
        assertEquals(List.of("context7", "figma"), names(result), "the user file still loads");
    }

    @Test
    void aFieldOfTheWrongTypeSkipsThatServerOnly(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.trustInCodex();
        Path file = f.write(f.app.resolve(".codex/config.toml"), String.join("\n",
                "[mcp_servers.a]", "command = \"a\"", "args = \"--verbose\"",
                "[mcp_servers.b]", "command = \"b\"", "env = [\"X\"]",
                "[mcp_servers.c]", "command = \"c\"", "startup_timeout_sec = \"10\"",
                "[mcp_servers.d]", "command = \"d\"", "tool_timeout_sec = inf",
                "[mcp_servers.e]", "command = \"e\"", "env_http_headers = { X-Key = 1 }",
                "[mcp_servers.ok]", "command = \"ok\"", "env = { N = 1, B = true }", ""));

        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(file, "/mcp_servers/a/args", "a", "\"args\" must be an array of strings, got a string"),
                new Problem(file, "/mcp_servers/b/env", "b", "\"env\" must be a table of strings, got an array"),
                new Problem(file, "/mcp_servers/c/startup_timeout_sec", "c", "\"startup_timeout_sec\" must be a number of seconds, got a string"),
                new Problem(file, "/mcp_servers/d/tool_timeout_sec", "d", "\"tool_timeout_sec\" must be a number of seconds, got a number out of range")),
                result.problems());
        // env_http_headers values are variable names: a number is taken as its text, like env values.
        assertEquals(List.of("e", "ok"), names(result));
        assertEquals(Map.of(), server(result, "e").headers(), "variable \"1\" is not set");
        assertEquals(Map.of("N", "1", "B", "true"), server(result, "ok").env());
    }

    @Test
    void aProjectFileCountsOnlyInTheWorkingDirectoryAndOnlyWhenCodexTrustsIt(@TempDir Path dir) {
        // As codex mcp list of Codex 0.169.0 says, run in each of these folders (docs/discovery.md).
        Fixture f = Fixture.empty(dir);
        Path file = f.write(f.app.resolve(".codex/config.toml"), "[mcp_servers.planted]\ncommand = \"sh\"\n");
        f.write(f.project.resolve(".codex/config.toml"), "[mcp_servers.above]\ncommand = \"sh\"\n");

        Result untrusted = source.discover(f.context());
        assertEquals(List.of(), untrusted.servers());
        assertEquals(1, untrusted.inactive().size(), untrusted.inactive()::toString);
        assertEquals(file, untrusted.inactive().get(0).server().source().path().orElseThrow());
        assertEquals("the folder " + f.app + " is not trusted in Codex: trust it when `codex` asks, or set"
                + " trust_level = \"trusted\" under [projects.\"" + f.app + "\"] in " + f.home.resolve(".codex/config.toml"),
                untrusted.inactive().get(0).reason());

        f.write(f.home.resolve(".codex/config.toml"), "[projects.\"" + f.project + "\"]\ntrust_level = \"trusted\"\n"
                + "[projects.\"" + f.app + "\"]\ntrust_level = \"untrusted\"\n");
        assertEquals(List.of("planted"), source.discover(f.context()).inactive().stream().map(i -> i.server().name())
                .toList(), "a trusted parent and an untrusted folder");

        f.trustInCodex();
        Result trusted = source.discover(f.context());
        assertEquals(List.of("planted"), names(trusted), "the parent's file is not Codex's: never read");
        assertEquals(List.of(), trusted.inactive());
    }

    @Test
    void mcpServersThatIsNotATableOrAServerThatIsNotATable(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path project = f.write(f.app.resolve(".codex/config.toml"), "mcp_servers = 3\n");
        Path user = f.write(f.home.resolve(".codex/config.toml"), "[mcp_servers]\nbad = \"npx\"\n[mcp_servers.good]\ncommand = \"g\"\n");

        Result result = source.discover(f.context());
        assertEquals(List.of(
                new Problem(project, "/mcp_servers", "", "\"mcp_servers\" must be a table, got a number"),
                new Problem(user, "/mcp_servers/bad", "bad", "the server entry must be a table, got a string")),
                result.problems());
        assertEquals(List.of("good"), names(result));
    }

    /** @return each tool to deny, ask, allow or default (nothing decided), read-only ones as {@code name:ro} */
    private static Map<String, String> decisions(ServerSpec server, String... tools) {
        Map<String, String> decisions = new java.util.LinkedHashMap<>();
        for (String tool : tools) {
            boolean readOnly = tool.endsWith(":ro");
            String name = readOnly ? tool.substring(0, tool.length() - 3) : tool;
            mcp.api.CallPolicy policy = server.toolPolicy().decide(new mcp.api.ToolDefinition(name, Optional.empty(),
                    Optional.empty(), mcp.api.McpJson.object(), Optional.empty(), readOnly
                    ? Optional.of(mcp.api.McpJson.object().put("readOnlyHint", true)) : Optional.empty()));
            decisions.put(tool, policy.decidedByOwner() ? policy.decision().id() : "default");
        }
        return decisions;
    }

    /**
     * As {@code codex exec} of Codex 0.169.0 let the calls run (scenario codex-tools of interop/agents/regenerate.sh):
     * approve ran, prompt and writes (on a tool without readOnlyHint) did not, a listed-out tool was not offered;
     * auto (the default) is Codex's judgement, nothing the user decided.
     */
    @Test
    void toolListsWithholdAndApprovalModesDecideEachCall(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path user = f.write(f.home.resolve(".codex/config.toml"), String.join("\n",
                "[mcp_servers.dflt]", "command = \"x\"",
                "[mcp_servers.appr]", "command = \"x\"", "default_tools_approval_mode = \"approve\"",
                "enabled_tools = [\"a\", \"b\", \"auto\"]",
                "[mcp_servers.appr.tools.b]", "approval_mode = \"prompt\"",
                "[mcp_servers.appr.tools.auto]", "approval_mode = \"auto\"",
                "[mcp_servers.prm]", "command = \"x\"", "default_tools_approval_mode = \"prompt\"",
                "disabled_tools = [\"b\"]",
                "[mcp_servers.wr]", "command = \"x\"", "default_tools_approval_mode = \"writes\"",
                "[mcp_servers.wr.tools.one]", "approval_mode = \"approve\"", ""));
        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());

        assertEquals(Map.of("a", "default", "ro:ro", "default"), decisions(server(result, "dflt"), "a", "ro:ro"));
        assertEquals(Map.of("a", "allow", "b", "ask", "c", "deny", "auto", "default"),
                decisions(server(result, "appr"), "a", "b", "c", "auto"), "a tool's own auto stands before the default");
        assertEquals(Map.of("a", "ask", "b", "deny"), decisions(server(result, "prm"), "a", "b"));
        assertEquals(Map.of("a", "ask", "ro:ro", "allow", "one", "allow"),
                decisions(server(result, "wr"), "a", "ro:ro", "one"));
        assertEquals("Codex: mcp_servers.appr.tools.b.approval_mode = \"prompt\" in " + user,
                server(result, "appr").toolPolicy().decide(mcp.api.ToolDefinition.of("b", null, mcp.api.McpJson.object()))
                        .describe());
    }

    @Test
    void anApprovalModeCodexDoesNotKnowSkipsTheServer(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Path user = f.write(f.home.resolve(".codex/config.toml"), "[mcp_servers.bad]\ncommand = \"x\"\n"
                + "default_tools_approval_mode = \"always\"\n[mcp_servers.good]\ncommand = \"x\"\n");
        Result result = source.discover(f.context());
        assertEquals(List.of(new Problem(user, "/mcp_servers/bad/default_tools_approval_mode", "bad",
                "\"default_tools_approval_mode\" must be \"auto\", \"prompt\", \"writes\" or \"approve\", got \"always\";"
                        + " Codex does not load such a config")), result.problems());
        assertEquals(List.of("good"), names(result));
    }

    // ---- the owner's auth settings ----

    /**
     * As `codex mcp add corp --url http://127.0.0.1:9/mcp --oauth-client-id cid-123 --oauth-client-secret s3cr3t
     * --oauth-resource https://res.example/mcp` of Codex 0.169.0 wrote it, callback_url included.
     */
    private static final String CODEX_ADD_WITH_OAUTH = """
            [mcp_servers.corp]
            url = "http://127.0.0.1:9/mcp"
            oauth_resource = "https://res.example/mcp"

            [mcp_servers.corp.oauth]
            client_id = "cid-123"
            client_secret = "s3cr3t"
            callback_url = "http://127.0.0.1/callback/9biCUt7SMRWF"
            """;

    @Test
    void anOAuthTableIsTheServersClientWithCodexsCallback(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".codex/config.toml"), CODEX_ADD_WITH_OAUTH);
        Result result = source.discover(f.context());
        assertEquals(List.of(), result.problems());
        mcp.api.ServerConfig.AuthRef auth = server(result, "corp").auth().orElseThrow();
        assertEquals("corp", auth.credentialId());
        assertEquals(Map.of("clientId", "cid-123", "clientSecret", "s3cr3t", "resource", "https://res.example/mcp",
                "redirectUri", "http://127.0.0.1/callback/9biCUt7SMRWF"), auth.options());
    }

    @Test
    void theCallbackIdEndsCodexsDefaultCallbackOnTheConfiguredPort(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        // The ids are those `codex mcp login --no-browser` of Codex 0.169.0 sent for these URLs.
        Path file = f.write(f.home.resolve(".codex/config.toml"), """
                mcp_oauth_callback_port = 8999

                [mcp_servers.global-port]
                url = "http://127.0.0.1:18765/mcp"
                scopes = ["x:1", "y:2"]
                [mcp_servers.global-port.oauth]
                client_id = "cid"

                [mcp_servers.own-port]
                url = "http://127.0.0.1:9/mcp"
                [mcp_servers.own-port.oauth]
                client_id = "cid"
                callback_port = 8777
                callback_url = "http://localhost:8123/cb"

                [mcp_servers.no-oauth]
                url = "http://127.0.0.1:9/other"

                [mcp_servers.secret-alone]
                url = "http://127.0.0.1:9/alone"
                [mcp_servers.secret-alone.oauth]
                client_secret = "s"
                """);
        Result result = source.discover(f.context());
        assertEquals(List.of("global-port", "own-port", "no-oauth"), names(result));
        assertEquals(Map.of("clientId", "cid", "scope", "x:1 y:2", "callbackPort", "8999",
                "redirectUri", "http://127.0.0.1/callback/6vFxV-jIo30S"), server(result, "global-port").auth()
                .orElseThrow().options());
        assertEquals(Map.of("clientId", "cid", "callbackPort", "8777",
                "redirectUri", "http://127.0.0.1/callback/9biCUt7SMRWF"), server(result, "own-port").auth()
                .orElseThrow().options(), "a callback_url without the id is not Codex's either");
        assertEquals(Optional.empty(), server(result, "no-oauth").auth(), "OAuth only when the server asks");
        assertEquals(List.of(new Problem(file, "/mcp_servers/own-port/oauth/callback_url", "own-port",
                        "\"oauth.callback_url\" does not end with this server's callback id \"9biCUt7SMRWF\", so Codex"
                                + " appends the id to its default callback instead, and so does mcp-host"),
                new Problem(file, "/mcp_servers/secret-alone/oauth/client_secret", "secret-alone",
                        "\"oauth.client_secret\" needs \"oauth.client_id\" and must not be empty; Codex refuses it")),
                result.problems());
    }

    @Test
    void theGlobalCallbackUrlGetsTheIdAndABearerTokenKeepsOAuthOut(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        f.write(f.home.resolve(".codex/config.toml"), """
                mcp_oauth_callback_url = "http://localhost:8124/base"

                [mcp_servers.corp]
                url = "http://127.0.0.1:18765/mcp"
                [mcp_servers.corp.oauth]
                client_id = "cid"

                [mcp_servers.bearer]
                url = "http://127.0.0.1:9/mcp"
                bearer_token_env_var = "TOKEN"
                [mcp_servers.bearer.oauth]
                client_id = "unused"
                """);
        Result result = source.discover(f.context(Map.of("TOKEN", "t")));
        assertEquals("http://localhost:8124/base/6vFxV-jIo30S",
                server(result, "corp").auth().orElseThrow().options().get("redirectUri"));
        assertEquals(Optional.empty(), server(result, "bearer").auth(), "Codex sends the bearer token, not OAuth");
    }
}
