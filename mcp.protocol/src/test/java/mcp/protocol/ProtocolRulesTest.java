package mcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The small rules both sides share. */
class ProtocolRulesTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    @Test
    void versionsBelongToOneEraEach() {
        assertEquals(Optional.of(Era.STATELESS), ProtocolVersions.eraOf("2026-07-28"));
        for (String v : ProtocolVersions.HANDSHAKE_VERSIONS) {
            assertEquals(Optional.of(Era.HANDSHAKE), ProtocolVersions.eraOf(v));
        }
        assertEquals(Optional.empty(), ProtocolVersions.eraOf("v999"));
        assertEquals("2025-06-18", ProtocolVersions.negotiateHandshake("2025-06-18"));
        assertEquals("2025-11-25", ProtocolVersions.negotiateHandshake("1999-01-01"));
        assertEquals("2025-11-25", ProtocolVersions.negotiateHandshake("2026-07-28"));
        assertEquals(Optional.of("2026-07-28"), ProtocolVersions.mutualStateless(json("[\"x\",\"2026-07-28\"]")));
        assertEquals(Optional.empty(), ProtocolVersions.mutualStateless(json("[\"2025-11-25\"]")));
    }

    @Test
    void theUnsupportedVersionErrorCarriesWhatWasAskedAndWhatIsSpoken() {
        McpProtocolException e = ErrorCodes.unsupportedProtocolVersion("v9", List.of("2026-07-28", "2025-11-25"));
        assertEquals(-32022, e.code());
        assertEquals("v9", e.data().orElseThrow().path("requested").asString());
        assertEquals(json("[\"2026-07-28\",\"2025-11-25\"]"), ErrorCodes.supportedVersions(e).orElseThrow());
        assertEquals(400, ErrorCodes.httpStatus(e.code()));
        assertEquals(404, ErrorCodes.httpStatus(-32601));
        assertTrue(ErrorCodes.missingClientCapability("sampling", "x").data().orElseThrow()
                .path("requiredCapabilities").path("sampling").isObject());
    }

    @Test
    void resultTypesAndCacheHintsAreReadLeniently() {
        assertEquals(Optional.of(ResultType.COMPLETE), ResultType.of(json("{}")));
        assertEquals(Optional.of(ResultType.INPUT_REQUIRED), ResultType.of(json("{\"resultType\":\"input_required\"}")));
        assertEquals(Optional.empty(), ResultType.of(json("{\"resultType\":\"task\"}")));
        assertEquals(new CacheHints(0, false), CacheHints.read(json("{\"ttlMs\":-5,\"cacheScope\":\"shared\"}")));
        assertEquals(new CacheHints(3, true), CacheHints.read(json("{\"ttlMs\":3,\"cacheScope\":\"public\"}")));
        assertEquals(new CacheHints(2, false), new CacheHints(3, true).and(new CacheHints(2, false)));
        assertEquals("{\"ttlMs\":9,\"cacheScope\":\"private\"}", new CacheHints(9, false).stateIn(McpJson.object()).toString());
    }

    @Test
    void headerValuesAreEncodedOnlyWhenTheyMustBe() {
        assertEquals("us-west1", McpHeaders.encode("us-west1"));
        assertEquals("a b", McpHeaders.encode("a b"));
        assertEquals("=?base64?SGVsbG8sIOS4lueVjA==?=", McpHeaders.encode("Hello, 世界"));
        assertEquals("=?base64?IHBhZGRlZCA=?=", McpHeaders.encode(" padded "));
        assertEquals("=?base64?bGluZTEKbGluZTI=?=", McpHeaders.encode("line1\nline2"));
        assertEquals("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", McpHeaders.encode("=?base64?literal?="));
        assertEquals("=?base64?YQli?=", McpHeaders.encode("a\tb"));
        assertEquals("=?base64??=", McpHeaders.encode(""));
    }

    @Test
    void headerValuesRoundTrip() {
        for (String value : List.of("tools/call", "weather tool", " lead", "tail ", "ünïcode", "=?base64?abc?=", "")) {
            assertEquals(Optional.of(value), McpHeaders.decode(McpHeaders.encode(value)), value);
        }
        assertEquals("plain", McpHeaders.encode("plain"));
        assertEquals(Optional.empty(), McpHeaders.decode("=?base64?***?="));
        assertEquals(Optional.of("a"), McpHeaders.nameOf("tools/call", json("{\"name\":\"a\"}")));
        assertEquals(Optional.empty(), McpHeaders.nameOf("tools/list", json("{\"name\":\"a\"}")));
        assertTrue(McpHeaders.validSessionId("abc-DEF_123~"));
        assertFalse(McpHeaders.validSessionId("a b"));
        assertFalse(McpHeaders.validSessionId(""));
    }

    @Test
    void whatTheFramesWriteTheParserReads() throws Exception {
        List<SseEvent> events = new ArrayList<>();
        SseParser parser = new SseParser(1 << 20, events::add);
        parser.feed(SseFrames.priming("s1-0", 500));
        parser.feed(SseFrames.keepAlive());
        parser.feed(SseFrames.event("s1-1", "{\"a\":1}"));
        parser.feed(SseFrames.event(null, "{\"b\":\"ü\"}"));
        assertEquals(500, parser.retryMillis());
        assertEquals(2, events.size());
        assertEquals("s1-1", events.get(0).lastEventId());
        assertEquals("{\"a\":1}", events.get(0).text());
        assertEquals("{\"b\":\"ü\"}", new String(events.get(1).data(), StandardCharsets.UTF_8));
    }

    @Test
    void paramHeadersMustSayWhatTheArgumentsSay() {
        JsonNode schema = json("{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
                + "\"x-mcp-header\":\"Region\"},\"opts\":{\"type\":\"object\",\"properties\":{\"n\":"
                + "{\"type\":\"integer\",\"x-mcp-header\":\"N\"}}}}}");
        assertEquals(List.of(new ToolHeaders.Annotation("Region", List.of("region")),
                new ToolHeaders.Annotation("N", List.of("opts", "n"))), ToolHeaders.annotations(schema));
        JsonNode arguments = json("{\"region\":\"Hello\",\"opts\":{\"n\":42}}");
        java.util.function.Function<java.util.Map<String, String>, Optional<String>> check = headers ->
                ToolHeaders.mismatch(schema, arguments, name -> Optional.ofNullable(headers.get(name)));
        assertEquals(Optional.empty(), check.apply(java.util.Map.of("Mcp-Param-Region", "Hello", "Mcp-Param-N", "42")));
        assertEquals(Optional.empty(), check.apply(java.util.Map.of("Mcp-Param-Region", "=?base64?SGVsbG8=?=",
                "Mcp-Param-N", " 42 ")));
        assertTrue(check.apply(java.util.Map.of("Mcp-Param-Region", "=?base64?SGVsbG8?=", "Mcp-Param-N", "42"))
                .orElseThrow().contains("not valid Base64"), "missing padding");
        assertTrue(check.apply(java.util.Map.of("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=", "Mcp-Param-N", "42"))
                .isPresent(), "characters outside the alphabet");
        assertTrue(check.apply(java.util.Map.of("Mcp-Param-N", "42")).orElseThrow().contains("missing"));
        assertTrue(check.apply(java.util.Map.of("Mcp-Param-Region", "Bye", "Mcp-Param-N", "42")).isPresent());
        assertTrue(ToolHeaders.mismatch(schema, json("{}"), name -> Optional.of("x")).orElseThrow()
                .contains("has no value"));
    }

    @Test
    void aFilterCarriesWhatItAsksFor() {
        SubscriptionFilter filter = SubscriptionFilter.read(json(
                "{\"promptsListChanged\":true,\"resourceSubscriptions\":[\"test://a\",5]}"));
        assertTrue(filter.carries("notifications/prompts/list_changed", null));
        assertFalse(filter.carries("notifications/tools/list_changed", null));
        assertTrue(filter.carries("notifications/resources/updated", json("{\"uri\":\"test://a\"}")));
        assertFalse(filter.carries("notifications/resources/updated", json("{\"uri\":\"test://b\"}")));
        assertEquals(json("{\"promptsListChanged\":true}"), filter.narrowedTo(true, true, true, false).toJson());
    }
}
