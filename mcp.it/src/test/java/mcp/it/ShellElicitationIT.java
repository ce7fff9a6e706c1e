package mcp.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import mcp.api.McpJson;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code mcp-host shell} at a real terminal (a tmux pane), typed into as a person types, while the Python SDK's
 * server ({@code interop/python/era_server.py}) asks: a form ({@code greet}), a page to open ({@code visit}) and a
 * call it refuses until the user has finished on a page ({@code vault}, -32042), in the era the shell finds by
 * itself (2026-07-28, where the questions come as input rounds) and pinned to 2025-11-25 (server requests).
 */
class ShellElicitationIT {

    private static final EraPeer PEER = EraPeer.python();
    private static final Duration PROMPT = Duration.ofSeconds(60);

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
        Assumptions.assumeTrue(Tmux.available(), "tmux is missing: .ci/run installs it (apt-get install tmux)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "2025-11-25"})
    void theShellAsksFormsAndPagesAtItsTerminal(String protocolVersion) throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        ObjectNode server = McpJson.object().put("command", PEER.stdio().command())
                .put("protocolVersion", protocolVersion);
        server.set("args", McpJson.mapper().valueToTree(PEER.stdio().args()));
        Path config = temp.resolve("py.json");
        Files.writeString(config, McpJson.mapper().writeValueAsString(
                McpJson.object().set("mcpServers", McpJson.object().set("py", server))));
        try (Tmux terminal = Tmux.start(temp, Map.of("HOME", home.toString(), "DISPLAY", ""),
                Cli.IMAGE.resolve("bin/mcp-host") + " shell --config " + config)) {
            int prompts = 1;
            terminal.waitFor("mcp> ", prompts, PROMPT);

            // A form, field by field, then the answers for a last yes.
            terminal.type("/call mcp_py_greet {}");
            terminal.waitFor("MCP server \"py\" asks: Your name?");
            terminal.type("Lin");
            terminal.waitFor("Send them to py?");
            terminal.type("y");
            terminal.waitFor("hello Lin");
            terminal.waitFor("mcp> ", ++prompts, PROMPT);

            // A page: the question names the server and the host, and only a yes shows the whole URL.
            terminal.type("/call mcp_py_visit {}");
            String asked = terminal.waitFor("Open it in your browser?");
            assertTrue(asked.contains("MCP server \"py\" asks you to open a page on era.example: Sign in to the era "
                    + "service"), asked);
            assertFalse(asked.contains("era-secret-token"), "the URL is shown only after consent:\n" + asked);
            terminal.type("y");
            terminal.waitFor("Opening https://era.example/sign-in?token=era-secret-token");
            String visited = terminal.waitFor("visit accept");
            if (protocolVersion.equals("2025-11-25")) {
                // Only the handshake era has a session on which the server says that the page is done.
                terminal.waitFor("the page you opened is done (visit-1)");
            } else {
                assertFalse(visited.contains("the page you opened is done"), visited);
            }
            terminal.waitFor("mcp> ", ++prompts, PROMPT);

            // A call refused until the user has finished on a page: opened on a yes, sent again on Enter.
            terminal.type("/call mcp_py_vault {}");
            terminal.waitFor("asks you to open a page on era.example: Unlock the vault");
            terminal.type("y");
            terminal.waitFor("press Enter to run the call again");
            terminal.type("");
            terminal.waitFor("vault open");
            terminal.waitFor("mcp> ", ++prompts, PROMPT);

            // Declined on the first line of the form: the server hears decline, the call goes on without a name.
            terminal.type("/call mcp_py_greet {}");
            terminal.waitFor("MCP server \"py\" asks: Your name?", 2, PROMPT);
            terminal.type(":decline");
            String declined = terminal.waitFor("mcp> ", ++prompts, PROMPT);
            assertTrue(Tmux.count(declined, "hello Lin") == 1, declined);

            terminal.type("/quit");
            terminal.waitForEnd(PROMPT);
        }
    }
}
