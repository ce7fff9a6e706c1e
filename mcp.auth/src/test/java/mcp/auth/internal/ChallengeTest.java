package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChallengeTest {

    @Test
    void readsTheBearerParameters() {
        Challenge challenge = Challenge.parse(List.of("Bearer error=\"insufficient_scope\", scope=\"mcp:basic mcp:write\", "
                + "resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp\""));
        assertTrue(challenge.insufficientScope());
        assertEquals(Optional.of("mcp:basic mcp:write"), challenge.scope());
        assertEquals(Optional.of("http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"),
                challenge.resourceMetadata());
    }

    @Test
    void findsBearerAmongOtherSchemesAndValues() {
        Challenge challenge = Challenge.parse(List.of("Basic realm=\"x\"",
                "Digest realm=\"a, b\", nonce=\"n\", Bearer realm=\"mcp\", scope=plain, error=\"with \\\"quote\\\"\""));
        assertEquals(Optional.of("plain"), challenge.scope());
        assertEquals(Optional.of("with \"quote\""), challenge.error());
        assertFalse(challenge.insufficientScope());
    }

    @Test
    void noBearerIsNone() {
        assertEquals(Challenge.NONE, Challenge.parse(List.of()));
        assertEquals(Challenge.NONE, Challenge.parse(List.of("Basic realm=\"x\"")));
        assertEquals(Challenge.NONE, Challenge.parse(List.of("", "  ,, ")));
        assertEquals(Optional.empty(), Challenge.parse(List.of("Bearer")).scope());
    }

    @Test
    void aResourceMatchesItselfAndItsSubpathsOnly() {
        URI server = URI.create("http://localhost:8080/mcp");
        assertTrue(Discovery.resourceMatches("http://localhost:8080/mcp", server));
        assertTrue(Discovery.resourceMatches("http://LOCALHOST:8080/mcp/", server));
        assertTrue(Discovery.resourceMatches("http://localhost:8080", server));
        assertTrue(Discovery.resourceMatches("http://localhost:8080/", server));
        assertFalse(Discovery.resourceMatches("http://localhost:8080/mc", server));
        assertFalse(Discovery.resourceMatches("http://localhost:8080/mcp/deeper", server));
        assertFalse(Discovery.resourceMatches("https://localhost:8080/mcp", server));
        assertFalse(Discovery.resourceMatches("http://localhost:8081/mcp", server));
        assertFalse(Discovery.resourceMatches("https://evil.example.com/mcp", server));
        assertFalse(Discovery.resourceMatches("not a uri at all", server));
        assertTrue(Discovery.resourceMatches("https://example.com/mcp", URI.create("https://example.com:443/mcp")));
    }

    @Test
    void theCanonicalServerUriHasNoFragmentQueryOrTrailingSlash() {
        assertEquals("https://mcp.example.com/mcp", Discovery.canonical(URI.create("HTTPS://MCP.Example.com/mcp/")));
        assertEquals("http://127.0.0.1:9/x", Discovery.canonical(URI.create("http://127.0.0.1:9/x?key=1#frag")));
    }

    @Test
    void pkceChallengeIsBase64UrlOfSha256() {
        // Computed independently: printf %s VERIFIER | openssl dgst -sha256 -binary | base64 (url alphabet, no padding).
        assertEquals("18r3qqZkDw6OoNDcpAfvqyHEojaqHagjuPogQrQMl6Y",
                OAuthClient.challenge("dBjftJeZ4CVP-mJ92K9cpUpUlbZlXLm8dtmRcB7zRsk"));
    }
}
