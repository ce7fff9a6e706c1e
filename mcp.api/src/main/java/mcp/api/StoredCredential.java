package mcp.api;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A credential held by the {@linkplain mcp.api.spi.AuthStorage auth storage}: an access token with
 * what is needed to renew it without the user (the refresh token, the token endpoint, the client).
 *
 * <p>Secret parts: {@link #accessToken()}, {@link #refreshToken()}, the attribute {@link #CLIENT_SECRET}
 * (also kept per issuer as {@code client_secret@<issuer>}) and the DPoP key pair ({@code dpop_key}).
 * {@link #toString()} shows none of them; nothing else may print them.
 *
 * @param accessToken the access token
 * @param tokenType the token type, {@code Bearer}
 * @param refreshToken the refresh token, if the authorization server gave one
 * @param expiresAt when the access token expires, if known
 * @param scopes the scopes granted (or requested, when the server did not say)
 * @param obtainedAt when the access token was obtained
 * @param attributes how the credential was obtained, for renewal and for status output: see the
 *     constants of this record
 */
public record StoredCredential(
        String accessToken,
        String tokenType,
        Optional<String> refreshToken,
        Optional<Instant> expiresAt,
        List<String> scopes,
        Instant obtainedAt,
        Map<String, String> attributes) {

    /** The protected resource (the MCP server URL) the token is for. */
    public static final String RESOURCE = "resource";
    /** The authorization server's issuer. */
    public static final String ISSUER = "issuer";
    /** The token endpoint, for refresh. */
    public static final String TOKEN_ENDPOINT = "token_endpoint";
    /** The client id used. */
    public static final String CLIENT_ID = "client_id";
    /** The client secret of a registered client (a secret). */
    public static final String CLIENT_SECRET = "client_secret";
    /** {@code client_secret_basic}, {@code client_secret_post} or {@code none}. */
    public static final String TOKEN_ENDPOINT_AUTH_METHOD = "token_endpoint_auth_method";
    /** The redirect URI the client was registered with. */
    public static final String REDIRECT_URI = "redirect_uri";
    /** The grant that obtained the credential: {@code authorization_code}, {@code client_credentials}, ... */
    public static final String GRANT = "grant";

    /** Checks and copies. */
    public StoredCredential {
        Objects.requireNonNull(accessToken, "accessToken");
        Objects.requireNonNull(tokenType, "tokenType");
        Objects.requireNonNull(refreshToken, "refreshToken");
        Objects.requireNonNull(expiresAt, "expiresAt");
        scopes = List.copyOf(scopes);
        Objects.requireNonNull(obtainedAt, "obtainedAt");
        attributes = Map.copyOf(attributes);
    }

    /** @return the attribute, if set and not blank */
    public Optional<String> attribute(String name) {
        return Optional.ofNullable(attributes.get(name)).filter(value -> !value.isBlank());
    }

    /**
     * @param now the current time
     * @param margin how long before the expiry a token counts as expired already
     * @return whether the access token has expired (or will within the margin); unknown expiry never
     *     counts as expired
     */
    public boolean expiredAt(Instant now, Duration margin) {
        return expiresAt.map(expiry -> !now.plus(margin).isBefore(expiry)).orElse(false);
    }

    /** @return a copy with these attributes added (replacing those of the same name) */
    public StoredCredential withAttributes(Map<String, String> more) {
        Map<String, String> merged = new java.util.LinkedHashMap<>(attributes);
        merged.putAll(more);
        return new StoredCredential(accessToken, tokenType, refreshToken, expiresAt, scopes, obtainedAt, merged);
    }

    @Override
    public String toString() {
        // Never a token or a secret.
        return "StoredCredential[tokenType=" + tokenType + ", refreshToken=" + (refreshToken.isPresent() ? "yes" : "no")
                + ", expiresAt=" + expiresAt.map(Instant::toString).orElse("unknown") + ", scopes=" + scopes
                + ", attributes=" + attributes.keySet() + "]";
    }
}
