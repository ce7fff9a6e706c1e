package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.Test;

class ResultRendererTest {

    private static final ToolOutput.Details DETAILS = new ToolOutput.Details("s", "t", false, List.of(),
            Optional.empty(), Optional.empty(), Optional.empty());

    private static ToolOutput render(String resultJson) {
        return ResultRenderer.render(ToolResult.fromJson(McpJson.mapper().readTree(resultJson)), DETAILS);
    }

    @Test
    void rendersEveryContentKindJoinedByABlankLine() {
        ToolOutput output = render("{\"content\":["
                + "{\"type\":\"text\",\"text\":\"hello\"},"
                + "{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"},"
                + "{\"type\":\"audio\",\"data\":\"AAAA\",\"mimeType\":\"audio/wav\"},"
                + "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://r/1\",\"text\":\"body\"}},"
                + "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://r/b\",\"blob\":\"AAAA\"}},"
                + "{\"type\":\"resource_link\",\"uri\":\"test://r/2\",\"name\":\"r2\"},"
                + "{\"type\":\"hologram\"}]}");
        assertEquals("hello\n\n[Image: image/png]\n\n[Audio: audio/wav]\n\n[Resource: test://r/1]\nbody\n\n"
                + "[Resource: test://r/b]\n\n[Resource link: test://r/2]\n\n[Unsupported content: hologram]",
                output.text());
        assertFalse(output.isError());
    }

    @Test
    void anErrorResultIsPrefixed() {
        ToolOutput output = render("{\"content\":[{\"type\":\"text\",\"text\":\"boom\"}],\"isError\":true}");
        assertEquals("Error: boom", output.text());
        assertTrue(output.isError());
    }

    @Test
    void structuredContentAloneIsShown() {
        assertEquals("{\"a\":1}", render("{\"content\":[],\"structuredContent\":{\"a\":1}}").text());
        assertEquals("text", render("{\"content\":[{\"type\":\"text\",\"text\":\"text\"}],"
                + "\"structuredContent\":{\"a\":1}}").text(), "with content, structured content stays in the details");
    }
}
