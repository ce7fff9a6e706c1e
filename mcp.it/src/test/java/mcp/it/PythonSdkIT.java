package mcp.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.concurrent.CopyOnWriteArrayList;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.api.spi.ElicitationUi;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mcp-host's client against a server on the MCP Python SDK ({@code mcp} 2.3.0, pinned in
 * {@code interop/python/requirements.txt}, installed into a virtual environment by {@code interop/install.sh}),
 * which speaks the stateless 2026-07-28 revision and the 2025 handshake: the era is found by the probe, and a
 * pinned 2025 version is spoken as pinned. Its script is {@code interop/python/era_server.py}; what it must show is
 * {@link EraPeer}'s, shared with the TypeScript SDK's server ({@link TypeScriptSdkIT}).
 */
class PythonSdkIT {

    private static final EraPeer PEER = EraPeer.python();

    private final List<McpClient> clients = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    private McpClient connect(ClientOptions.Builder options) {
        return EraPeer.connect("py", PEER.stdio(), options, temp, clients);
    }

    @Test
    void theModernEraIsChosenByItselfWithInputRoundsAndListChanges() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        EraPeer.showsTheModernEra(connect(EraPeer.options("py", "Grace", changed)), changed, "stdio");
    }

    @Test
    void aPinned2025VersionIsSpokenAsPinned() {
        // In the handshake era the same resolver becomes a server request, answered by the same handler.
        EraPeer.showsThePinnedHandshakeEra(connect(EraPeer.pinned2025("py")));
    }

    /** A UI that answers from a script, as a person would, and keeps what it was shown. */
    static final class ScriptedUi implements ElicitationUi {
        final List<Object> shown = new CopyOnWriteArrayList<>();
        volatile Response formAnswer;
        volatile Response urlAnswer;

        @Override
        public String id() {
            return "scripted";
        }

        @Override
        public Response form(FormRequest request) {
            shown.add(request);
            return formAnswer;
        }

        @Override
        public Response url(UrlRequest request) {
            shown.add(request);
            return urlAnswer;
        }

        @Override
        public void completed(String serverName, String elicitationId) {
            completions.add(serverName + "/" + elicitationId);
            completed.countDown();
        }

        final List<String> completions = new CopyOnWriteArrayList<>();
        final CountDownLatch completed = new CountDownLatch(1);
    }

    @Test
    void anElicitationUiAnswersFormsAndUrlsInBothEras() {
        for (String version : List.of(McpClient.AUTO, "2025-11-25")) {
            ScriptedUi ui = new ScriptedUi();
            McpClient client = connect(ClientOptions.builder("py").protocolVersion(version)
                    .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.forUi("py", ui)));
            String era = client.initializeResult().protocolVersion();
            assertEquals(version.equals(McpClient.AUTO) ? "2026-07-28" : "2025-11-25", era);

            ui.formAnswer = ElicitationUi.Response.accept(McpJson.object().put("name", "Lin"));
            assertEquals("hello Lin", EraPeer.text(client.callToolBlocking("greet", McpJson.object())), era);
            ElicitationUi.FormRequest form = (ElicitationUi.FormRequest) ui.shown.get(0);
            assertEquals("Your name?", form.message(), era);
            assertEquals("string", form.requestedSchema().path("properties").path("name").path("type").asString(), era);

            ui.urlAnswer = ElicitationUi.Response.accept();
            ToolResult visited = client.callToolBlocking("visit", McpJson.object());
            assertEquals("visit accept", EraPeer.text(visited), era);
            ElicitationUi.UrlRequest url = (ElicitationUi.UrlRequest) ui.shown.get(1);
            assertEquals(URI.create("https://era.example/sign-in?token=era-secret-token"), url.url(), era);
            // The 2026-07-28 revision's wire, as the SDK writes it, leaves the id out: there is no session to complete it on.
            assertEquals(era.equals("2025-11-25") ? "visit-1" : url.elicitationId(), url.elicitationId(), era);
            assertEquals("py", url.serverName(), era);
            if (era.equals("2025-11-25")) {
                assertTrue(await(ui.completed), "no notifications/elicitation/complete reached the UI");
                assertEquals(List.of("py/visit-1"), ui.completions);
            }
            // What the model would see: the tool result, nothing of the URL.
            assertFalse(visited.toString().contains("era-secret-token"), visited.toString());

            ui.urlAnswer = ElicitationUi.Response.decline();
            assertEquals("visit decline", EraPeer.text(client.callToolBlocking("visit", McpJson.object())), era);
            ui.formAnswer = ElicitationUi.Response.cancel();
            assertFalse(EraPeer.text(client.callToolBlocking("greet", McpJson.object())).startsWith("hello"), era);
        }
    }

    @Test
    void aCallRefusedUntilTheUserFinishesOnAPageIsSentAgainOnceTheUserHas() {
        for (String version : List.of(McpClient.AUTO, "2025-11-25")) {
            ScriptedUi ui = new ScriptedUi();
            McpClient client = connect(ClientOptions.builder("py").protocolVersion(version)
                    .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.forUi("py", ui)));
            ui.urlAnswer = ElicitationUi.Response.accept();
            assertEquals("vault open", EraPeer.text(client.callToolBlocking("vault", McpJson.object())), version);
            ElicitationUi.UrlRequest page = (ElicitationUi.UrlRequest) ui.shown.get(0);
            assertTrue(page.callWaits(), version + ": " + page);
            assertEquals(URI.create("https://era.example/unlock?token=vault-secret-token"), page.url(), version);
            assertEquals("Unlock the vault", page.message(), version);
            assertEquals("vault-1", page.elicitationId(), version);

            ui.urlAnswer = ElicitationUi.Response.decline();
            String declined = outcome(client, "vault");
            assertTrue(declined.contains("needs you to finish on a page (era.example) before it runs tools/call vault;"
                    + " you declined"), version + ": " + declined);
            assertFalse(declined.contains("vault-secret-token"), declined);
            assertEquals(2, ui.shown.size(), version + ": asked once per refusal");
        }
        // Without a UI that shows pages, the call fails with what the user must do, and still not the URL.
        McpClient client = connect(ClientOptions.builder("py")
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.withoutUi("py")));
        String refused = outcome(client, "vault");
        assertTrue(refused.contains("cannot show pages: run it in mcp-host shell"), refused);
        assertFalse(refused.contains("vault-secret-token"), refused);
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A tool's text, or the error the call failed with: either way what the agent would be told. */
    private static String outcome(McpClient client, String tool) {
        try {
            return EraPeer.text(client.callToolBlocking(tool, McpJson.object()));
        } catch (McpException e) {
            return e.getMessage();
        }
    }

    @Test
    void withoutAUiNothingIsDeclaredAndNoAnswerIsMadeUp() {
        for (String version : List.of(McpClient.AUTO, "2025-11-25")) {
            McpClient client = connect(ClientOptions.builder("py").protocolVersion(version)
                    .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.withoutUi("py")));
            String greeted = outcome(client, "greet");
            assertFalse(greeted.startsWith("hello"), version + ": " + greeted);
            String visited = outcome(client, "visit");
            assertFalse(visited.equals("visit accept"), version + ": " + visited);
            System.out.println("without a UI, " + version + ": greet -> " + greeted + " | visit -> " + visited);
        }
    }
}
