package mcp.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replicas' key ring as files and environment variables give it: the first key seals; no message shows a key. */
class ReplicaKeysTest {

    private static final String A = Base64.getEncoder().encodeToString("a".repeat(32).getBytes());
    private static final String B = Base64.getUrlEncoder().withoutPadding().encodeToString("b".repeat(40).getBytes());

    @Test
    void theFirstKeySealsAndEveryFormSeparatesKeys() {
        for (String text : new String[] {"# comment\n\nnew:" + B + "\nold:" + A + "\n", "new:" + B + ",old:" + A,
                "  new:" + B + "   old:" + A}) {
            ReplicaKeys keys = ReplicaKeys.parse(text, "test");
            assertEquals("new", keys.currentId());
            assertEquals(List.of("new", "old"), keys.ids());
        }
        ReplicaKeys keys = ReplicaKeys.parse("k:" + A, "test");
        assertArrayEquals(keys.derive("k", "x").orElseThrow(), keys.derive("k", "x").orElseThrow());
        assertNotEquals(Base64.getEncoder().encodeToString(keys.derive("k", "x").orElseThrow()),
                Base64.getEncoder().encodeToString(keys.derive("k", "y").orElseThrow()), "a key per purpose");
        assertTrue(keys.derive("other", "x").isEmpty());
        assertFalse(keys.toString().contains(A), keys.toString());
    }

    @Test
    void malformedKeysAreRefusedWithoutShowingThem() {
        String shortKey = Base64.getEncoder().encodeToString("short".getBytes());
        for (String text : new String[] {"", "# only a comment", "k:" + shortKey, "nocolon" + A, "bad id!:" + A,
                "k:" + A + "\nk:" + A, "k:%%%not-base64%%%"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ReplicaKeys.parse(text, "MCP_HOST_GATEWAY_KEYS"), text);
            assertTrue(e.getMessage().startsWith("MCP_HOST_GATEWAY_KEYS"), e.getMessage());
            assertFalse(e.getMessage().contains(A) || e.getMessage().contains(shortKey), e.getMessage());
        }
    }
}
