package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * What the agent and its embedder get of the servers' resources and prompts: the two resource tools (only while a
 * server offers resources), prompts as commands, results rendered as tool results are; over real testkit servers.
 */
class SessionSurfaceTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private Path config(Map<String, List<String>> servers) throws IOException {
        return HostFixtures.config(temp, servers);
    }

    private ToolSession open(Path config) {
        return McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).build().openSession();
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        HostFixtures.awaitTrue(what, 15, condition);
    }

    private static ToolOutput call(ToolSession session, String tool, String args) {
        return McpClient.await(session.tool(tool).orElseThrow(() -> new AssertionError("no tool " + tool + " in "
                + session.tools().stream().map(AgentTool::name).toList())).call(
                        args == null ? null : McpJson.mapper().readTree(args)));
    }

    @Test
    void aSessionsSavedResultsGoWhenItCloses() throws Exception {
        Path config = config(Map.of("kit", List.of("--features", "large-results", "--era", "dual")));
        Path results = temp.resolve("results");
        ToolSession session = McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).resultDirectory(results).build().openSession();
        ToolOutput output;
        try {
            output = call(session, "mcp_kit_big_text", null);
            assertTrue(output.text().startsWith("[This result is too large for the context: 5,242,880 characters"),
                    output.text());
            try (var saved = Files.list(results)) {
                assertEquals(1, saved.count(), "one session directory");
            }
        } finally {
            session.close();
        }
        try (var left = Files.list(results)) {
            assertEquals(List.of(), left.toList(), "the session's directory went with it");
        }
    }

    @Test
    void theAgentListsAndReadsResourcesThroughTwoToolsAndTheEmbedderRunsPrompts() throws Exception {
        Path config = config(Map.of("kit", List.of("--features", "prompts,resources,completions", "--blob-bytes", "64"),
                "plain", List.of("--era", "modern")));
        try (ToolSession session = open(config)) {
            ToolOutput listing = call(session, "list_mcp_resources", null);
            assertFalse(listing.isError(), listing.text());
            assertTrue(listing.text().startsWith("Server kit:\n- test://text/readme (readme, text/plain)"),
                    listing.text());
            assertTrue(listing.text().contains("- template test://items/{id} (item, text/plain): An item by its id."),
                    listing.text());
            assertFalse(listing.text().contains("Server plain"), "a server without resources is left out");
            ToolOutput none = call(session, "list_mcp_resources", "{\"server\":\"plain\"}");
            assertTrue(none.isError() && none.text().equals("MCP error: MCP server \"plain\" offers no resources"),
                    none.text());

            ToolOutput text = call(session, "read_mcp_resource", "{\"server\":\"kit\",\"uri\":\"test://items/9\"}");
            assertEquals("[Resource: test://items/9]\nitem 9", text.text());
            ToolOutput blob = call(session, "read_mcp_resource", "{\"server\":\"kit\",\"uri\":\"test://blob/data\"}");
            assertEquals("[Resource: test://blob/data (application/octet-stream, 64 bytes)]", blob.text());
            assertEquals(64, ((Content.EmbeddedResource) blob.details().content().get(0)).resource().bytes().length);
            ToolOutput missing = call(session, "read_mcp_resource", "{\"server\":\"kit\",\"uri\":\"test://nothing\"}");
            assertTrue(missing.isError() && missing.text().startsWith("MCP error") && missing.text().contains(
                    "Resource not found") && !missing.text().contains("MCP error: MCP error"), missing.text());
            ToolOutput bad = call(session, "read_mcp_resource", "{\"uri\":\"test://items/1\"}");
            assertTrue(bad.isError() && bad.text().contains("needs \"server\" and \"uri\""), bad.text());

            List<PromptCommand> prompts = session.prompts();
            assertEquals(List.of("kit:hello", "kit:greet"), prompts.stream().map(PromptCommand::name).toList());
            PromptCommand greet = prompts.get(1);
            assertEquals(List.of("name", "style"), greet.prompt().arguments().stream().map(a -> a.name()).toList());
            ToolOutput ran = McpClient.await(greet.run(Map.of("name", "Ada", "style", "funny")));
            assertEquals("The greet prompt\n\nuser: Greet Ada in a funny style.", ran.text());
            ToolOutput needs = McpClient.await(greet.run(Map.of()));
            assertTrue(needs.isError() && needs.text().equals("MCP error: Prompt kit:greet needs name"), needs.text());
            assertTrue(McpClient.await(greet.complete("style", "fu", Map.of())).values().contains("funny"));

            ToolSession child = session.subagent();
            assertTrue(child.tool("read_mcp_resource").isPresent(), "a subagent reads through its parent's servers");
            assertEquals(List.of("kit:hello", "kit:greet"), child.prompts().stream().map(PromptCommand::name).toList());
            child.close();
        }
    }

    @Test
    void withoutAServerThatOffersResourcesThereAreNoResourceTools() throws Exception {
        try (ToolSession session = open(config(Map.of("plain", List.of("--features", "prompts"))))) {
            assertTrue(session.tool("list_mcp_resources").isEmpty());
            assertTrue(session.tool("read_mcp_resource").isEmpty());
            assertEquals(List.of("plain:hello", "plain:greet"), session.prompts().stream().map(PromptCommand::name)
                    .toList());
            JsonNode schema = session.tools().get(0).inputSchema();
            assertTrue(schema.isObject());
        }
    }

    @Test
    void theAgentLoadsASkillAndItsFilesOnlyWhenItAsksAndNeverAnUnverifiedOne() throws Exception {
        Path config = config(Map.of("docs", List.of("--era", "modern", "--features", "skills"),
                "liar", List.of("--features", "skills", "--fault", "skill-digest")));
        try (ToolSession session = open(config)) {
            assertEquals(List.of("pdf-processing", "git-workflow", "daily"), session.skills().stream()
                    .filter(skill -> skill.server().equals("docs")).map(skill -> skill.name()).toList());
            AgentTool load = session.tool("load_mcp_skill").orElseThrow();
            assertTrue(load.description().contains("\n- pdf-processing (server docs): Extract, fill, and assemble PDF "
                    + "documents"), load.description());
            assertTrue(load.description().contains("(server liar)"), load.description());

            ToolOutput pdf = call(session, "load_mcp_skill", "{\"server\":\"docs\",\"skill\":\"pdf-processing\"}");
            assertFalse(pdf.isError(), pdf.text());
            assertTrue(pdf.text().startsWith("Skill pdf-processing from MCP server docs (verified"), pdf.text());
            assertTrue(pdf.text().contains("Fill forms as references/FORMS.md says."), pdf.text());
            assertTrue(pdf.text().endsWith("Files (read with \"file\"): references/FORMS.md"), pdf.text());
            ToolOutput forms = call(session, "load_mcp_skill",
                    "{\"server\":\"docs\",\"skill\":\"pdf-processing\",\"file\":\"references/FORMS.md\"}");
            assertEquals("[Skill file: skill://pdf-processing/references/FORMS.md]\nForm fields: name, date, signature.\n",
                    forms.text());
            ToolOutput unlisted = call(session, "load_mcp_skill",
                    "{\"server\":\"docs\",\"skill\":\"pdf-processing\",\"file\":\"references/NOPE.md\"}");
            assertTrue(unlisted.isError(), unlisted.text());

            ToolOutput lie = call(session, "load_mcp_skill", "{\"server\":\"liar\",\"skill\":\"pdf-processing\"}");
            assertTrue(lie.isError() && lie.text().contains("failed verification"), lie.text());
            assertFalse(lie.text().contains("# PDF processing"), "unverified content is never shown");
            ToolOutput unknown = call(session, "load_mcp_skill", "{\"server\":\"docs\",\"skill\":\"nope\"}");
            assertEquals("MCP error: MCP server \"docs\" offers no skill \"nope\"", unknown.text());
        }
    }
}
