package mcp.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.McpJson;
import mcp.protocol.McpHeaders;
import mcp.protocol.ToolHeaders;
import tools.jackson.databind.JsonNode;

/**
 * Whatever a client POSTs, with whatever headers, the request parser gives an answer and never throws: a refusal is a
 * 400 with one of the codes a malformed request gets, and a request it lets through as stateless has an envelope and
 * headers that agree with its body.
 *
 * <p>{@code mvn verify} replays the inputs under {@code RequestParserFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes
 * (docs/testing.md).
 */
class RequestParserFuzzTest {

    private static final Set<Integer> REFUSAL_CODES = Set.of(-32700, -32600, -32602, -32020);
    /** A tool whose argument {@code region} is mirrored into {@code Mcp-Param-Region}. */
    private static final JsonNode ECHO = McpJson.mapper().readTree("{\"type\":\"object\",\"properties\":"
            + "{\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"}}}");

    @FuzzTest(maxDuration = "5m")
    void anyBodyAndHeadersAreParsedOrRefusedClearly(FuzzedDataProvider data) {
        boolean inSession = data.consumeBoolean();
        Map<String, String> headers = new HashMap<>();
        for (String name : new String[] {McpHeaders.PROTOCOL_VERSION, McpHeaders.METHOD, McpHeaders.NAME,
                "Mcp-Param-Region"}) {
            if (data.consumeBoolean()) {
                headers.put(name, data.consumeString(40));
            }
        }
        byte[] body = data.consumeRemainingAsBytes();
        RequestParser.Parsed parsed = RequestParser.parse(body, inSession,
                name -> Optional.ofNullable(headers.get(name)), name -> name.equals("echo") ? Optional.of(ECHO)
                        : Optional.empty());
        if (parsed instanceof RequestParser.Refused refused) {
            assertEquals(400, refused.status());
            assertTrue(REFUSAL_CODES.contains(refused.code()), refused.toString());
            assertTrue(!refused.message().isBlank());
        } else if (parsed instanceof RequestParser.Stateless stateless) {
            assertEquals(stateless.envelope().protocolVersion(), headers.get(McpHeaders.PROTOCOL_VERSION).trim());
            assertEquals(Optional.of(stateless.request().method()),
                    McpHeaders.decode(headers.get(McpHeaders.METHOD).trim()));
            McpHeaders.nameOf(stateless.request().method(), stateless.request().params()).ifPresent(name ->
                    assertEquals(Optional.of(name), McpHeaders.decode(headers.get(McpHeaders.NAME).trim())));
            if (stateless.request().method().equals("tools/call") && headers.containsKey(McpHeaders.NAME)
                    && McpHeaders.decode(headers.get(McpHeaders.NAME).trim()).equals(Optional.of("echo"))) {
                assertEquals(Optional.empty(), ToolHeaders.mismatch(ECHO, stateless.request().params().path("arguments"),
                        name -> Optional.ofNullable(headers.get(name))));
            }
        } else if (parsed instanceof RequestParser.InSession) {
            assertTrue(inSession);
        }
    }
}
