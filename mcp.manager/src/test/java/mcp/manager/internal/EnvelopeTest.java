package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.List;
import mcp.api.McpJson;
import mcp.manager.ClientOptions;
import mcp.manager.Root;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The stateless era's {@code _meta} envelope: what every request carries, and what it leaves alone. */
class EnvelopeTest {

    private static final String META = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":%s,"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"host\",\"version\":\"9\"},"
            + "\"io.modelcontextprotocol/logLevel\":\"info\"}";

    private static ClientOptions.Builder options() {
        return ClientOptions.builder("s").clientInfo("host", "9");
    }

    @Test
    void putsVersionCapabilitiesAndIdentityOnParamsOfAnyShape() {
        Envelope envelope = new Envelope("2026-07-28", options().build());
        assertEquals("{\"_meta\":" + META.formatted("{}") + "}", envelope.apply(null).toString());
        assertEquals("{\"_meta\":" + META.formatted("{}") + "}", envelope.apply(McpJson.object()).toString());
        assertEquals("{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"},\"_meta\":" + META.formatted("{}") + "}",
                envelope.apply(McpJson.mapper().readTree("{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}"))
                        .toString());
    }

    @Test
    void saysTheCapabilitiesTheHandlersAndRootsGive() {
        ClientOptions withAll = options().roots(List.of(Root.of(Path.of("/tmp"))))
                .handler(ClientOptions.SAMPLING_METHOD, params -> McpJson.object())
                .handler(ClientOptions.ELICITATION_METHOD, params -> McpJson.object()).build();
        JsonNode capabilities = new Envelope("2026-07-28", withAll).apply(null).path("_meta")
                .path("io.modelcontextprotocol/clientCapabilities");
        assertEquals("{\"roots\":{},\"sampling\":{},\"elicitation\":{\"form\":{}}}", capabilities.toString());
    }

    @Test
    void declaresTheTasksExtensionOnlyWhenAsked() {
        Envelope envelope = new Envelope("2026-07-28", options().build());
        assertEquals("{\"_meta\":" + META.formatted("{}") + "}", envelope.apply(null, false).toString(),
                "byte for byte as without the extension");
        assertEquals("{\"_meta\":" + META.formatted("{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}") + "}",
                envelope.apply(null, true).toString());
        assertEquals("{\"_meta\":" + META.formatted("{}") + "}", envelope.apply(null).toString(),
                "the shared capabilities are not changed by the tasks copy");
    }

    @Test
    void keepsOtherMetaKeysAndLeavesTheCallersParamsAsTheyWere() {
        Envelope envelope = new Envelope("2026-07-28", options().build());
        ObjectNode params = (ObjectNode) McpJson.mapper().readTree(
                "{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"},\"_meta\":{\"progressToken\":7,"
                        + "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\"}}");
        String before = params.toString();
        ObjectNode sent = envelope.apply(params);
        assertEquals(before, params.toString(), "the caller's params are not changed");
        assertEquals(7, sent.path("_meta").path("progressToken").asInt());
        assertEquals("2026-07-28", sent.path("_meta").path("io.modelcontextprotocol/protocolVersion").asString());
        assertEquals(List.of("progressToken", "io.modelcontextprotocol/protocolVersion",
                "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo",
                "io.modelcontextprotocol/logLevel"),
                List.copyOf(sent.path("_meta").propertyNames()));
        // The arguments are sent as given, not copied (as in the handshake era).
        assertSame(params.get("arguments"), sent.get("arguments"));
    }

    @Test
    void carriesTheLogLevelAskedForAndKeepsOneTheCallerSet() {
        Envelope envelope = new Envelope("2026-07-28", options().logLevel(mcp.api.LogLevel.WARNING).build());
        assertEquals("warning", envelope.apply(null).path("_meta").path(mcp.protocol.Meta.LOG_LEVEL).asString());
        envelope.logLevel(mcp.api.LogLevel.DEBUG);
        assertEquals("debug", envelope.apply(null).path("_meta").path(mcp.protocol.Meta.LOG_LEVEL).asString());
        ObjectNode own = (ObjectNode) McpJson.mapper().readTree("{\"_meta\":{\"io.modelcontextprotocol/logLevel\":\"error\"}}");
        assertEquals("error", envelope.apply(own).path("_meta").path(mcp.protocol.Meta.LOG_LEVEL).asString());
    }

    @Test
    void everyRequestGetsAMetaOfItsOwn() {
        Envelope envelope = new Envelope("2026-07-28", options().build());
        ObjectNode first = envelope.apply(null);
        ObjectNode second = envelope.apply(null);
        ((ObjectNode) first.get("_meta")).put("extra", 1);
        assertFalse(second.path("_meta").has("extra"));
    }
}
