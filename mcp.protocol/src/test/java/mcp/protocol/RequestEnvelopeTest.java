package mcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import mcp.api.LogLevel;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The envelope a client writes is the envelope a server reads, and a server refuses what the revision requires. */
class RequestEnvelopeTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    @Test
    void whatAClientWritesAServerReads() {
        RequestEnvelope written = new RequestEnvelope("2026-07-28", json("{\"sampling\":{}}"),
                Optional.of(json("{\"name\":\"c\",\"version\":\"1\"}")), Optional.of(LogLevel.WARNING));
        ObjectNode params = (ObjectNode) json("{\"name\":\"t\",\"_meta\":{\"progressToken\":7}}");
        ObjectNode sent = written.applyTo(params);
        assertEquals(written, RequestEnvelope.read(sent));
        assertEquals(7, sent.path("_meta").path("progressToken").asInt(), "the caller's _meta keys stay");
        assertFalse(params.path("_meta").has(Meta.PROTOCOL_VERSION), "the caller's params are not changed");
        assertTrue(written.declares("sampling"));
        assertFalse(written.declares("elicitation"));
    }

    @Test
    void aLogLevelTheCallerSetWins() {
        RequestEnvelope envelope = new RequestEnvelope("2026-07-28", McpJson.object(), Optional.empty(),
                Optional.of(LogLevel.INFO));
        ObjectNode sent = envelope.applyTo(json("{\"_meta\":{\"io.modelcontextprotocol/logLevel\":\"debug\"}}"));
        assertEquals(Optional.of(LogLevel.DEBUG), RequestEnvelope.read(sent).logLevel());
    }

    @Test
    void missingPartsAreInvalidParams() {
        for (String params : new String[] {"{}", "{\"_meta\":5}", "null",
                "{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{}}}",
                "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}",
                "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                        + "\"io.modelcontextprotocol/clientCapabilities\":[]}}",
                "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                        + "\"io.modelcontextprotocol/clientCapabilities\":{},"
                        + "\"io.modelcontextprotocol/logLevel\":\"loud\"}}"}) {
            McpProtocolException e = assertThrows(McpProtocolException.class, () -> RequestEnvelope.read(json(params)),
                    params);
            assertEquals(-32602, e.code(), params);
        }
    }

    @Test
    void clientInfoIsOptionalAndAMalformedOneCountsAsNone() {
        RequestEnvelope read = RequestEnvelope.read(json("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                + "\"x\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":7}}"));
        assertEquals(Optional.empty(), read.clientInfo());
        assertEquals("x", read.protocolVersion(), "the version is checked by the reader against what it speaks");
    }
}
