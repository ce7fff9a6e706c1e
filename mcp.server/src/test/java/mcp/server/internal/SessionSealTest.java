package mcp.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.server.ReplicaKeys;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Sealed session ids: what they carry, how long they open, and how large they may grow. */
class SessionSealTest {

    private static final long NOW = 1_800_000_000_000L;
    private final SessionSeal seal = new SessionSeal(ReplicaKeys.parse("k1:" + Base64.getEncoder()
            .encodeToString(new byte[32]), "test"));

    @Test
    void anIdCarriesTheSessionAndHidesIt() {
        ObjectNode capabilities = McpJson.object();
        capabilities.putObject("elicitation").putObject("form");
        String id = seal.seal("2025-06-18", capabilities, Optional.of(McpJson.object().put("name", "secret-client")),
                NOW);
        assertTrue(id.startsWith("s1.k1."), id);
        assertFalse(id.contains("secret") || new String(Base64.getUrlDecoder().decode(id.substring(6)),
                java.nio.charset.StandardCharsets.ISO_8859_1).contains("secret-client"), "encrypted, not encoded");
        SessionSeal.Opened opened = seal.open(id, NOW + 1000).orElseThrow();
        assertEquals("2025-06-18", opened.protocolVersion());
        assertEquals(capabilities, opened.capabilities());
        assertEquals("secret-client", opened.clientInfo().orElseThrow().path("name").asString());
        assertEquals(NOW, opened.issuedAtMillis());
        assertNotEquals(id, seal.seal("2025-06-18", capabilities, Optional.empty(), NOW), "a fresh IV each time");
    }

    @Test
    void anIdOpensForItsAgeAndNotFromTheFuture() {
        String id = seal.seal("2025-11-25", McpJson.object(), Optional.empty(), NOW);
        assertTrue(seal.open(id, NOW + SessionSeal.MAX_AGE.toMillis()).isPresent());
        assertTrue(seal.open(id, NOW + SessionSeal.MAX_AGE.toMillis() + 1).isEmpty(), "expired");
        assertTrue(seal.open(id, NOW - SessionSeal.SKEW.toMillis()).isPresent(), "a clock a little behind");
        assertTrue(seal.open(id, NOW - SessionSeal.SKEW.toMillis() - 1).isEmpty(), "issued in the future");
        for (String bad : new String[] {"", "s1.", "s1.k1.", "s1.k2." + id.substring(6), "s1.k1.!!!", id + "A",
                "s1.k1." + id.substring(7)}) {
            assertTrue(seal.open(bad, NOW).isEmpty(), bad);
        }
    }

    @Test
    void aLargeClientIsCutToKeepTheIdBounded() {
        ObjectNode capabilities = McpJson.object();
        for (int i = 0; i < 200; i++) {
            capabilities.putObject("experimental-" + i).put("padding", "x".repeat(40));
        }
        ObjectNode info = McpJson.object().put("name", "big").put("version", "1").put("description", "y".repeat(5000));
        String id = seal.seal("2025-11-25", capabilities, Optional.of(info), NOW);
        assertTrue(id.length() < 6 * 1024, "id of " + id.length() + " characters");
        SessionSeal.Opened opened = seal.open(id, NOW).orElseThrow();
        assertEquals("big", opened.clientInfo().orElseThrow().path("name").asString());
        assertFalse(opened.clientInfo().orElseThrow().has("description"));
        assertTrue(opened.capabilities().has("experimental-199"), "the names are kept");
        assertFalse(opened.capabilities().path("experimental-199").has("padding"));
    }
}
