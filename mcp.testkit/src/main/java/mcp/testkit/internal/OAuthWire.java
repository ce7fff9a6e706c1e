package mcp.testkit.internal;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The small encodings of the OAuth wire that {@code mcp.testkit.AuthTestServer} needs: forms and
 * queries, HTTP Basic and Bearer credentials, PKCE S256, random secrets and redirect URI matching.
 */
public final class OAuthWire {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "localhost", "[::1]", "::1");

    private OAuthWire() {
    }

    /**
     * Parses {@code application/x-www-form-urlencoded} text (a request body or a raw query).
     *
     * @param raw the encoded text, or {@code null} for none
     * @return the parameters in their order, unmodifiable; a repeated name keeps its first value
     */
    public static Map<String, String> parseForm(String raw) {
        Map<String, String> params = new LinkedHashMap<>();
        if (raw != null && !raw.isEmpty()) {
            for (String pair : raw.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                params.putIfAbsent(name, value);
            }
        }
        return Collections.unmodifiableMap(params);
    }

    /**
     * Encodes parameters as {@code application/x-www-form-urlencoded} text, in the map's order.
     *
     * @param params names and values
     * @return the encoded text, without a leading {@code ?}
     */
    public static String form(Map<String, String> params) {
        StringJoiner joined = new StringJoiner("&");
        params.forEach((name, value) -> joined.add(encode(name) + "=" + encode(value)));
        return joined.toString();
    }

    /**
     * Appends query parameters to a URI that may already have a query.
     *
     * @param uri a URI such as a client's redirect URI
     * @param params the parameters to add
     * @return the URI text with the parameters
     */
    public static String withQuery(String uri, Map<String, String> params) {
        return uri + (uri.contains("?") ? "&" : "?") + form(params);
    }

    /**
     * The PKCE S256 code challenge of a verifier (RFC 7636): base64url, unpadded, of its SHA-256.
     *
     * @param verifier the code verifier
     * @return the challenge
     */
    public static String s256(String verifier) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
        }
    }

    /**
     * A new random secret: the prefix, then 256 random bits in base64url (43 characters).
     *
     * @param prefix a recognizable prefix, e.g. {@code mcpat_}
     * @return the secret
     */
    public static String randomSecret(String prefix) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The client id and secret of an HTTP Basic {@code Authorization} header, form-decoded as RFC 6749
     * section 2.3.1 asks.
     *
     * @param authorization the header value, or {@code null}
     * @return id and secret (two elements), or empty when the header is absent, not Basic or malformed
     */
    public static Optional<List<String>> basicCredentials(String authorization) {
        String encoded = credentials(authorization, "basic");
        if (encoded == null) {
            return Optional.empty();
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(encoded), UTF_8);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            return Optional.empty();
        }
        return Optional.of(List.of(decode(decoded.substring(0, colon)), decode(decoded.substring(colon + 1))));
    }

    /**
     * The token of an {@code Authorization: Bearer} header.
     *
     * @param authorization the header value, or {@code null}
     * @return the token, or empty when the header is absent or of another scheme
     */
    public static Optional<String> bearerToken(String authorization) {
        return Optional.ofNullable(credentials(authorization, "bearer")).filter(t -> !t.isEmpty());
    }

    /**
     * Whether a redirect URI asked for matches a registered one: exactly, or for a loopback host with
     * any port, as OAuth 2.1 allows for native clients.
     *
     * @param registered the URI given at registration
     * @param asked the URI of an authorization request
     * @return true when the authorization server may redirect to {@code asked}
     */
    public static boolean sameRedirect(String registered, String asked) {
        if (registered.equals(asked)) {
            return true;
        }
        try {
            URI r = URI.create(registered);
            URI a = URI.create(asked);
            return "http".equals(r.getScheme()) && "http".equals(a.getScheme())
                    && r.getHost() != null && LOOPBACK_HOSTS.contains(r.getHost().toLowerCase(Locale.ROOT))
                    && r.getHost().equalsIgnoreCase(a.getHost())
                    && r.getRawPath().equals(a.getRawPath())
                    && java.util.Objects.equals(r.getRawQuery(), a.getRawQuery());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String credentials(String authorization, String scheme) {
        if (authorization == null) {
            return null;
        }
        String value = authorization.strip();
        int space = value.indexOf(' ');
        if (space < 0 || !value.substring(0, space).toLowerCase(Locale.ROOT).equals(scheme)) {
            return null;
        }
        return value.substring(space + 1).strip();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, UTF_8);
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, UTF_8);
        } catch (IllegalArgumentException e) {
            return text; // a malformed %-escape: keep the text as sent, the check that follows will refuse it
        }
    }
}
