package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.CallLimits;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.ResultBudget;
import mcp.api.StdioServerConfig;
import mcp.testkit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The result budget (issue 19, item 4) against the testkit server's large results ({@code --features large-results}),
 * a real child process, in both protocol eras: text over the bounds saved owner-only and previewed within them, images
 * as image items with their pixel size and tokens, text over the warning threshold whole after a note, error results
 * saved as the tool's error output and still errors, the bounds of the server's config, of single tools, of the
 * builder and of the server's {@code anthropic/maxResultSizeChars}.
 */
class ResultBudgetTest {

    private static final Pattern SAVED = Pattern.compile("saved to (\\S+); read that file");
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private McpManager manager(McpManager.Builder builder, StdioServerConfig config) {
        McpManager manager = builder.workingDirectory(Path.of("").toAbsolutePath()).resultDirectory(temp).build();
        managers.add(manager);
        manager.connectServers(Map.of("kit", config), Map.of());
        return manager;
    }

    private static StdioServerConfig server(String era) {
        return TestServerProcesses.config("--era", era, "--features", "large-results");
    }

    private static ToolOutput call(McpManager manager, String tool, String args) {
        return ReconnectTest.call(ReconnectTest.tool(manager, "mcp_kit_" + tool), args);
    }

    private static Path savedFile(ToolOutput output) {
        Matcher matcher = SAVED.matcher(output.text());
        assertTrue(matcher.find(), "the output names the file: " + output.text());
        return Path.of(matcher.group(1));
    }

    private static String preview(ToolOutput output) {
        String text = output.text();
        int start = text.indexOf("follow.]\n") + "follow.]\n".length();
        int end = text.lastIndexOf("\n[... ");
        return text.substring(start, end);
    }

    private static String number(long value) {
        return String.format(java.util.Locale.ROOT, "%,d", value);
    }

    /** The note before a result over the default warning threshold, within the caps. */
    private static String warning(String subject, String text) {
        return "[" + subject + " is large: about " + number(TokenCounter.get().count(text)) + " tokens (estimate), over "
                + "the warning threshold of 10,000 tokens.]";
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void fiveMegabytesOfTextAreSavedOwnerOnlyAndPreviewedWithinTheCap(String era) throws IOException {
        McpManager manager = manager(McpManager.builder(), server(era));
        ToolOutput output = call(manager, "big_text", null);
        String whole = TestServer.numberedLines(5 << 20);

        assertFalse(output.isError(), output.text());
        assertTrue(output.text().length() <= ResultBudget.DEFAULT_MAX_CHARS, "within the cap: " + output.text().length());
        assertTrue(TokenCounter.get().count(output.text()) <= ResultBudget.DEFAULT_MAX_TOKENS);
        assertTrue(output.text().startsWith("[This result is too large for the context: 5,242,880 characters is over "
                + "the cap of 50,000 characters. The whole result was saved to "), output.text());
        String preview = preview(output);
        assertTrue(preview.length() > 1_000 && whole.startsWith(preview), "a preview of the beginning: " + preview);
        assertTrue(output.text().endsWith("\n[... " + String.format(java.util.Locale.ROOT, "%,d",
                whole.length() - preview.length()) + " more characters]"), output.text());
        // The details hold what the agent gets, not the 5 MB: an embedder that sends them sends the note.
        assertEquals(List.of(new Content.Text(output.text())), output.details().content());

        Path file = savedFile(output);
        assertEquals(whole, Files.readString(file));
        assertEquals(manager.resultDirectory().orElseThrow(), file.getParent());
        assertEquals(temp, file.getParent().getParent());
        assertTrue(file.getParent().getFileName().toString().startsWith("mcp-host-results-"), file.toString());
        if (POSIX) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        }

        Path second = savedFile(call(manager, "big_text", "{\"bytes\": 60000}"));
        assertFalse(second.equals(file), "every result has its own file");
        manager.close();
        assertFalse(Files.exists(file), "removed when the session closes");
        assertFalse(Files.exists(second));
        assertFalse(Files.exists(file.getParent()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aTwoMegabyteImagePassesAsAnImageItemWithANote(String era) {
        McpManager manager = manager(McpManager.builder(), server(era));
        ToolOutput output = call(manager, "big_image", null);
        assertFalse(output.isError(), output.text());
        assertEquals("An image of 2097152 bytes.\n\n[Image: image/png, 2,097,152 bytes, passed as an image item, not "
                + "as text]", output.text());
        Content.Image image = (Content.Image) output.details().content().get(1);
        assertEquals("image/png", image.mimeType());
        assertEquals(2 << 20, java.util.Base64.getDecoder().decode(image.data()).length);
        assertEquals(Optional.empty(), manager.resultDirectory(), "nothing saved");

        // A small image keeps the plain marker.
        ToolOutput small = call(manager, "big_image", "{\"bytes\": 100}");
        assertEquals("An image of 100 bytes.\n\n[Image: image/png]", small.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void anImagesMarkerGivesItsPixelSizeAndItsTokensWhenItsHeaderDoes(String era) {
        McpManager manager = manager(McpManager.builder(), server(era));
        ToolOutput small = call(manager, "big_image", "{\"bytes\": 100, \"width\": 1024, \"height\": 768}");
        assertEquals("An image of 100 bytes.\n\n[Image: image/png, 1024x768, about 1,049 tokens]", small.text());
        assertEquals(100, java.util.Base64.getDecoder().decode(((Content.Image) small.details().content().get(1))
                .data()).length);

        // Scaled to about 1,600 tokens as the model would; the note of its bytes follows.
        ToolOutput large = call(manager, "big_image", "{\"width\": 3000, \"height\": 2000}");
        assertEquals("An image of 2097152 bytes.\n\n[Image: image/png, 3000x2000, about 1,600 tokens, 2,097,152 bytes, "
                + "passed as an image item, not as text]", large.text());
        assertEquals(Optional.empty(), manager.resultDirectory(), "nothing saved");
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aResultOverTheWarningThresholdPassesWholeAfterANote(String era) {
        McpManager manager = manager(McpManager.builder(), server(era));
        String whole = TestServer.numberedLines(45_000);
        int tokens = TokenCounter.get().count(whole);
        assertTrue(tokens > ResultBudget.DEFAULT_WARN_TOKENS && tokens <= ResultBudget.DEFAULT_MAX_TOKENS,
                "the fixture is between the warning and the cap: " + tokens);

        ToolOutput output = call(manager, "big_text", "{\"bytes\": 45000}");
        String note = "[This result is large: about " + number(tokens) + " tokens (estimate), over the warning "
                + "threshold of 10,000 tokens.]";
        assertEquals(note + "\n" + whole, output.text());
        assertFalse(output.isError());
        assertEquals(List.of(new Content.Text(note), new Content.Text(whole)), output.details().content(),
                "the details carry the note before the result's items");
        assertEquals(Optional.empty(), manager.resultDirectory(), "nothing saved");

        // The note is not counted: a result just within the cap passes whole though the note takes it over.
        McpManager tight = manager(McpManager.builder().callLimits(CallLimits.NONE.withResultBudget(
                ResultBudget.of(45_000, null, null))), server(era));
        assertEquals(note + "\n" + whole, call(tight, "big_text", "{\"bytes\": 45000}").text());

        // Under the threshold: no note.
        assertEquals(TestServer.numberedLines(20_000), call(manager, "big_text", "{\"bytes\": 20000}").text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void anErrorResultOverTheCapIsSavedAsTheToolsErrorOutputAndStaysAnError(String era) throws IOException {
        McpManager manager = manager(McpManager.builder(), server(era));
        ToolOutput output = call(manager, "big_text", "{\"bytes\": 60000, \"error\": true}");
        assertTrue(output.isError(), "still an error");
        assertTrue(output.details().isError());
        assertTrue(output.text().startsWith("[This error output of the tool is too large for the context: 60,007 "
                + "characters is over the cap of 50,000 characters. The whole error output was saved to "),
                output.text());
        assertTrue(preview(output).startsWith("Error: 0000000 abc"), output.text());
        assertTrue(output.text().length() <= ResultBudget.DEFAULT_MAX_CHARS);
        assertEquals(List.of(new Content.Text(output.text())), output.details().content());
        assertEquals("Error: " + TestServer.numberedLines(60_000), Files.readString(savedFile(output)),
                "the error's whole text is kept");

        // Over the warning threshold only: whole, an error, and the note says so.
        String whole = "Error: " + TestServer.numberedLines(45_000);
        ToolOutput warned = call(manager, "big_text", "{\"bytes\": 45000, \"error\": true}");
        assertTrue(warned.isError());
        assertEquals(warning("This error output of the tool", whole) + "\n" + whole, warned.text());
    }

    @Test
    void theServersBudgetItsToolsBudgetsAndTheBuildersBudgetApply() {
        ResultBudget budget = new ResultBudget(Optional.of(1_000), Optional.empty(), Optional.empty(),
                Map.of("echo", ResultBudget.of(300, null, null)));
        McpManager manager = manager(McpManager.builder().callLimits(CallLimits.NONE.withResultBudget(
                ResultBudget.of(100_000, 300, null))), server("legacy").withCallLimits(
                        CallLimits.NONE.withResultBudget(budget)));

        ToolOutput within = call(manager, "big_text", "{\"bytes\": 900}");
        assertEquals(TestServer.numberedLines(900), within.text());

        ToolOutput server = call(manager, "big_text", "{\"bytes\": 1500}");
        assertTrue(server.text().startsWith("[This result is too large for the context: 1,500 characters is over the "
                + "cap of 1,000 characters."), server.text());
        assertTrue(server.text().length() <= 1_000, server.text());

        ToolOutput tool = call(manager, "echo", McpJson.object().put("message", "m".repeat(400)).toString());
        assertTrue(tool.text().startsWith("[This result is too large for the context: 400 characters is over the cap "
                + "of 300 characters."), tool.text());
        assertTrue(tool.text().length() <= 300 + 220, "the note is never cut, the preview fits: " + tool.text());

        // The builder's token bound, where the server's budget sets none: 1,500 characters of these lines are over
        // 300 tokens.
        int tokens = TokenCounter.get().count(TestServer.numberedLines(1_500));
        assertTrue(tokens > 300, "the fixture is over the bound: " + tokens);
        McpManager builderOnly = manager(McpManager.builder().callLimits(CallLimits.NONE.withResultBudget(
                ResultBudget.of(100_000, 300, null))), server("modern"));
        ToolOutput byTokens = call(builderOnly, "big_text", "{\"bytes\": 1500}");
        assertTrue(byTokens.text().startsWith("[This result is too large for the context: about " + String.format(
                java.util.Locale.ROOT, "%,d", tokens)
                + " tokens is over the cap of 300 tokens."), byTokens.text());
        assertTrue(TokenCounter.get().count(byTokens.text()) <= 300, byTokens.text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void theServersMaxResultSizeCharsOnTheDefinitionOrTheResultRaisesTheCharacterBound(String era) {
        McpManager manager = manager(McpManager.builder(), server(era));
        // On the definition: 200,000 characters; text is then not bounded by tokens (150,000 characters are more
        // than 25,000 tokens).
        ToolOutput hinted = call(manager, "hinted_text", "{\"bytes\": 150000}");
        String whole = TestServer.numberedLines(150_000);
        assertEquals(warning("This result", whole) + "\n" + whole, hinted.text(), "whole, over the warning threshold");
        ToolOutput over = call(manager, "hinted_text", "{\"bytes\": 250000}");
        assertTrue(over.text().startsWith("[This result is too large for the context: 250,000 characters is over the "
                + "cap of 200,000 characters (the server's anthropic/maxResultSizeChars)."), over.text());

        // On the result.
        String eighty = TestServer.numberedLines(80_000);
        assertEquals(warning("This result", eighty) + "\n" + eighty,
                call(manager, "big_text", "{\"bytes\": 80000, \"hint\": 100000}").text());
        assertTrue(call(manager, "big_text", "{\"bytes\": 80000}").text().startsWith("[This result is too large"));
        // At most Claude Code's ceiling, 500,000.
        ToolOutput ceiling = call(manager, "big_text", "{\"bytes\": 600000, \"hint\": 10000000}");
        assertTrue(ceiling.text().contains("over the cap of 500,000 characters"), ceiling.text());
    }

    @Test
    void aToolsOwnBoundInTheConfigWinsOverTheServersHint() {
        McpManager manager = manager(McpManager.builder(), server("legacy").withCallLimits(CallLimits.NONE
                .withResultBudget(new ResultBudget(Optional.empty(), Optional.empty(), Optional.empty(),
                        Map.of("hinted_text", ResultBudget.of(1_000, null, null))))));
        ToolOutput output = call(manager, "hinted_text", "{\"bytes\": 5000}");
        assertTrue(output.text().startsWith("[This result is too large for the context: 5,000 characters is over the "
                + "cap of 1,000 characters."), output.text());
    }

    @Test
    void keptResultFilesOutliveTheSession() throws IOException {
        McpManager manager = manager(McpManager.builder().keepResultFiles(true), server("legacy"));
        Path file = savedFile(call(manager, "big_text", "{\"bytes\": 60000}"));
        manager.close();
        assertEquals(TestServer.numberedLines(60_000), Files.readString(file));
    }
}
