package mcp.auth.internal;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.StoredCredential;

/**
 * A successful answer of a token endpoint (RFC 6749 §5.1).
 *
 * @param accessToken the access token
 * @param tokenType the token type (default {@code Bearer})
 * @param refreshToken the refresh token, if any
 * @param expiresIn the lifetime in seconds, if given
 * @param scope the granted scopes (space-separated), if given
 */
record TokenResponse(String accessToken, String tokenType, Optional<String> refreshToken, Optional<Long> expiresIn,
        Optional<String> scope) {

    /**
     * @param now when the token was obtained
     * @param requestedScope what was asked for, when the server does not say what it granted
     * @param previousRefresh the refresh token to keep when the server sends no new one
     * @param attributes how it was obtained (see {@link StoredCredential})
     * @return the credential to store
     */
    StoredCredential toCredential(Instant now, Optional<String> requestedScope, Optional<String> previousRefresh,
            Map<String, String> attributes) {
        List<String> scopes = scope.or(() -> requestedScope)
                .map(text -> Arrays.stream(text.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList())
                .orElse(List.of());
        return new StoredCredential(accessToken, tokenType, refreshToken.or(() -> previousRefresh),
                expiresIn.map(now::plusSeconds), scopes, now, attributes);
    }

    @Override
    public String toString() {
        return "TokenResponse[tokenType=" + tokenType + ", refreshToken=" + refreshToken.isPresent() + ", expiresIn="
                + expiresIn.orElse(null) + ", scope=" + scope.orElse(null) + "]";
    }
}
