package mcp.auth.internal;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.McpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The first step of Cross-App Access (Enterprise-Managed Authorization, the MCP extension SEP-990): an
 * RFC 8693 token exchange at the enterprise identity provider's token endpoint turns the user's ID token
 * into an Identity Assertion JWT Authorization Grant (ID-JAG) whose audience is the MCP server's
 * authorization server and whose {@code resource} is the MCP server. The second step, the RFC 7523 JWT
 * bearer grant that trades the ID-JAG for an access token, is an ordinary token request of
 * {@link OAuthClient}.
 *
 * <p>Client authentication at the IdP: {@code client_id} in the form body, and, when the client has a
 * secret, HTTP Basic as well ({@code client_secret_basic}). RFC 6749 §3.2.1 lets a client name itself with
 * {@code client_id} next to its authentication.
 *
 * <p>The exchange is bounded as every {@link OAuthHttp} exchange is; messages never hold the ID token or
 * the secret, not even when the IdP echoes them back.
 */
final class CrossAppAccess {

    private static final Logger LOG = LoggerFactory.getLogger(CrossAppAccess.class);

    static final String TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
    static final String ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
    static final String ID_TOKEN_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

    private CrossAppAccess() {
    }

    /**
     * Exchanges the user's ID token for an ID-JAG at the enterprise IdP (RFC 8693 token exchange).
     *
     * <p>Form: {@code grant_type=urn:ietf:params:oauth:grant-type:token-exchange},
     * {@code requested_token_type=urn:ietf:params:oauth:token-type:id-jag}, {@code subject_token},
     * {@code subject_token_type=urn:ietf:params:oauth:token-type:id_token}, {@code audience},
     * {@code resource}, {@code scope} when given, {@code client_id}.
     *
     * @param http the exchanges, with their bounds
     * @param tokenEndpoint the IdP's token endpoint
     * @param idpClientId this host's client id at the IdP
     * @param idpClientSecret its secret; empty for a public client
     * @param idToken the user's ID token from the IdP
     * @param audience the issuer identifier of the MCP server's authorization server, exactly as its metadata
     *     states it
     * @param resource the MCP server's resource identifier, exactly as its protected resource metadata states it
     * @param scope the scopes to ask for (space-separated), if any
     * @return the ID-JAG (the response's {@code access_token})
     * @throws McpException if the IdP cannot be reached, refuses, or answers without an ID-JAG
     */
    static String requestIdJag(OAuthHttp http, URI tokenEndpoint, String idpClientId, Optional<String> idpClientSecret,
            String idToken, String audience, String resource, Optional<String> scope) {
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(tokenEndpoint, "tokenEndpoint");
        Objects.requireNonNull(idpClientId, "idpClientId");
        Objects.requireNonNull(idpClientSecret, "idpClientSecret");
        Objects.requireNonNull(idToken, "idToken");
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(scope, "scope");
        if (idpClientId.isBlank()) {
            throw new IllegalArgumentException("the IdP client id is blank");
        }
        Optional<String> secret = idpClientSecret.filter(value -> !value.isEmpty());
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", TOKEN_EXCHANGE_GRANT);
        form.put("requested_token_type", ID_JAG_TOKEN_TYPE);
        form.put("subject_token", idToken);
        form.put("subject_token_type", ID_TOKEN_TOKEN_TYPE);
        form.put("audience", audience);
        form.put("resource", resource);
        scope.filter(value -> !value.isBlank()).ifPresent(value -> form.put("scope", value));
        form.put("client_id", idpClientId);
        List<String> secrets = new ArrayList<>();
        secrets.add(idToken);
        secret.ifPresent(secrets::add);

        String step = "the token exchange (ID token for ID-JAG) at the identity provider";
        OAuthHttp.Answer answer;
        try {
            answer = http.postForm(tokenEndpoint, form, secret.map(value -> OAuthHttp.basic(idpClientId, value)));
        } catch (McpException e) {
            throw new McpException(step + ": " + e.getMessage(), e);
        }
        String where = step + " " + Urls.redact(tokenEndpoint);
        if (!answer.ok()) {
            throw new McpException(where + " failed: " + OAuthHttp.oauthError(answer, secrets));
        }
        JsonNode body = OAuthHttp.parse(answer.body(), where);
        String idJag = Discovery.text(body, "access_token").orElseThrow(() -> new McpException(
                where + " answered without \"access_token\""));
        JsonNode issued = body.get("issued_token_type");
        // RFC 8693 makes issued_token_type required; an IdP that leaves it out still gets the benefit of the doubt,
        // one that names another type has not issued an ID-JAG.
        if (issued != null && !issued.isNull() && !ID_JAG_TOKEN_TYPE.equals(issued.asString())) {
            throw new McpException(where + " issued a token of type \"" + OAuthHttp.scrub(issued.asString(), secrets)
                    + "\", not an ID-JAG (" + ID_JAG_TOKEN_TYPE + ")");
        }
        LOG.debug("Cross-App Access: {} issued an ID-JAG", Urls.redact(tokenEndpoint));
        return idJag;
    }
}
