package mcp.resourceserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import mcp.server.HttpAuthenticator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Whatever a client puts in its {@code Authorization} header (any text, or a JWT-shaped token whose header, claims
 * and signature are arbitrary), the resource server refuses it with 401 and a challenge made only of its own words:
 * nothing of the request comes back, so nothing can break the header's quoting or echo a credential, and nothing
 * unsigned by the issuer gets through.
 *
 * <p>{@code mvn verify} replays the inputs under {@code BearerTokenFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes
 * (docs/testing.md).
 */
class BearerTokenFuzzTest {

    private static final URI RESOURCE = URI.create("http://127.0.0.1:8931/mcp");
    /** The challenge's whole grammar: fixed descriptions (letters, spaces and a few marks), the metadata, the scope. */
    private static final Pattern CHALLENGE = Pattern.compile("Bearer (error=\"invalid_token\", "
            + "error_description=\"[a-zA-Z ,'()]+\", )?resource_metadata=\"http://127\\.0\\.0\\.1:8931/\\.well-known/"
            + "oauth-protected-resource/mcp\", scope=\"mcp:tools\"");

    private static TestIssuer issuer;
    private static OAuthResourceServer server;

    @BeforeAll
    static void start() throws Exception {
        issuer = new TestIssuer();
        server = OAuthResourceServer.builder(issuer.issuer, RESOURCE).requiredScopes(Set.of("mcp:tools")).build();
    }

    @AfterAll
    static void stop() {
        issuer.close();
    }

    @FuzzTest(maxDuration = "5m")
    void anyAuthorizationIsRefusedInTheServersOwnWords(FuzzedDataProvider data) {
        // The one connection a token may cause: a fetch of the configured issuer's keys (an unknown key id), whose
        // address no token chooses. Jazzer's request-forgery detector is told so; any other stays a finding.
        int port = issuer.issuer.getPort();
        try (SilentCloseable allowed = BugDetectors.allowNetworkConnections((host, to) -> to == port)) {
            check(data);
        }
    }

    private static void check(FuzzedDataProvider data) {
        String authorization;
        if (data.consumeBoolean()) {
            authorization = data.consumeRemainingAsString();
        } else {
            Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
            String header = data.consumeBoolean() ? "{\"alg\":\"RS256\",\"kid\":\"key-1\"}" : data.consumeString(60);
            String claims = data.consumeString(200);
            authorization = "Bearer " + base64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                    + base64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "."
                    + base64.encodeToString(data.consumeRemainingAsBytes());
        }
        HttpAuthenticator.Outcome outcome = server.authenticate("POST", "/mcp", name -> name.equals("Authorization")
                ? Optional.of(authorization) : Optional.empty());
        HttpAuthenticator.Refused refused = assertInstanceOf(HttpAuthenticator.Refused.class, outcome);
        assertEquals(401, refused.status());
        String challenge = refused.headers().get("WWW-Authenticate");
        assertTrue(CHALLENGE.matcher(challenge).matches(), challenge);
        assertTrue(refused.message().startsWith("Unauthorized: "), refused.message());
    }
}
