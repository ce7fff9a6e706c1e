package mcp.server;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;

/**
 * Who sent a request, as the server established it: over HTTP from the credentials its {@link HttpAuthenticator}
 * checked, and otherwise the user of the machine the server runs on ({@link #LOCAL}: stdio, or HTTP with no
 * authenticator or with the server's own bearer token). A handler decides on it what the client may see and do; it
 * never holds the credential itself, so nothing of it can be passed on upstream.
 *
 * @param subject who the caller is (a token's {@code sub}); {@code local} for {@link #LOCAL}
 * @param client the OAuth client the caller uses (a token's {@code client_id} or {@code azp}), when known
 * @param groups the groups the caller is in (a token's {@code groups} claim or what the authenticator maps to it)
 * @param scopes the scopes granted
 * @param claims every claim of the credential, for policies on what is not named above (an empty object for
 *     {@link #LOCAL})
 */
public record Caller(String subject, Optional<String> client, Set<String> groups, Set<String> scopes,
        JsonNode claims) {

    /** The user of this machine: whoever can reach stdio, or the HTTP server with its own token. */
    public static final Caller LOCAL = new Caller("local", Optional.empty(), Set.of(), Set.of(), McpJson.object());

    /** Validates and copies. */
    public Caller {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(client, "client");
        groups = Set.copyOf(groups);
        scopes = Set.copyOf(scopes);
        claims = Objects.requireNonNull(claims, "claims").deepCopy();
    }

    /**
     * @return whether this is the machine's own user rather than an authenticated remote caller: {@link #LOCAL}
     *     itself, never a caller an authenticator made, whatever its claims say
     */
    public boolean local() {
        return this == LOCAL;
    }
}
