package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import mcp.api.McpJson;
import mcp.api.spi.ElicitationUi;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The shell's terminal form and URL consent, typed into as a person would. */
class ShellElicitationTest {

    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final List<URI> opened = new CopyOnWriteArrayList<>();

    private ShellElicitation typing(String... lines) {
        return new ShellElicitation(new BufferedReader(new StringReader(String.join("\n", lines) + "\n")),
                new PrintStream(printed, true, StandardCharsets.UTF_8), url -> {
                    opened.add(url);
                    return Optional.empty();
                });
    }

    private String screen() {
        return printed.toString(StandardCharsets.UTF_8);
    }

    private static final JsonNode SCHEMA = McpJson.mapper().readTree("""
            {"type": "object", "properties": {
              "name": {"type": "string", "title": "Name"},
              "age": {"type": "integer", "minimum": 18, "default": 30},
              "plan": {"type": "string", "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}]},
              "news": {"type": "boolean", "default": false}
            }, "required": ["name"]}""");

    @Test
    void aFormIsAskedFieldByFieldWithDefaultsAndReasksWhatDoesNotFit() {
        ElicitationUi.Response response = typing("", "Ada", "12", "", "2", "maybe", "y", "y")
                .form(new ElicitationUi.FormRequest("kit", "Who are you?", SCHEMA));
        assertEquals(ElicitationUi.Action.ACCEPT, response.action());
        assertEquals(McpJson.mapper().readTree("{\"name\": \"Ada\", \"age\": 30, \"plan\": \"pro\", \"news\": true}"),
                response.content().orElseThrow());
        String screen = screen();
        assertTrue(screen.contains("MCP server \"kit\" asks: Who are you?"), screen);
        assertTrue(screen.contains("Name is required"), screen);
        assertTrue(screen.contains("at least 18"), screen);
        assertTrue(screen.contains("[30]"), screen);
        assertTrue(screen.contains("2) Pro"), screen);
        assertTrue(screen.contains("answer y or n"), screen);
    }

    @Test
    void declineCancelAndEndOfInputLeaveTheForm() {
        assertEquals(ElicitationUi.Action.DECLINE, typing("Ada", ":decline")
                .form(new ElicitationUi.FormRequest("kit", "m", SCHEMA)).action());
        assertEquals(ElicitationUi.Action.CANCEL, typing(":cancel")
                .form(new ElicitationUi.FormRequest("kit", "m", SCHEMA)).action());
        assertEquals(ElicitationUi.Action.CANCEL, typing("Ada")
                .form(new ElicitationUi.FormRequest("kit", "m", SCHEMA)).action());
    }

    @Test
    void aUrlIsOpenedOnlyAfterConsentThatNamesServerAndHost() {
        URI url = URI.create("https://login.example/start?token=t0k");
        ElicitationUi.UrlRequest request = new ElicitationUi.UrlRequest("kit", "Sign in", url, "e1");
        assertEquals(ElicitationUi.Action.DECLINE, typing("n").url(request).action());
        assertEquals(List.of(), opened, "declined: nothing opened");
        assertTrue(screen().contains("MCP server \"kit\" asks you to open a page on login.example: Sign in"), screen());
        assertTrue(!screen().contains("t0k"), "the full URL is shown only after consent");

        assertEquals(ElicitationUi.Action.ACCEPT, typing("what", "y").url(request).action());
        assertEquals(List.of(url), opened);
        assertTrue(screen().contains("Opening " + url), screen());
        assertEquals(ElicitationUi.Action.CANCEL, typing("c").url(request).action());
    }

    @Test
    void aCallThatWaitsOnAPageIsSentAgainOnlyWhenTheUserSaysSoAfterOpeningIt() {
        URI url = URI.create("https://vault.example/unlock?token=t0k");
        ElicitationUi.UrlRequest request = new ElicitationUi.UrlRequest("kit", "Unlock the vault", url, "v1", true);
        assertEquals(ElicitationUi.Action.ACCEPT, typing("y", "later", "").url(request).action());
        assertEquals(List.of(url), opened);
        assertTrue(screen().contains("press Enter to run the call again"), screen());
        assertTrue(screen().contains("Please press Enter, or answer c."), screen());

        assertEquals(ElicitationUi.Action.CANCEL, typing("y", "c").url(request).action());
        assertEquals(ElicitationUi.Action.CANCEL, typing("y").url(request).action(), "end of input cancels");
        assertEquals(ElicitationUi.Action.DECLINE, typing("n").url(request).action());
        assertEquals(List.of(url, url, url), opened, "opened after each yes, never after the no");
    }
}
