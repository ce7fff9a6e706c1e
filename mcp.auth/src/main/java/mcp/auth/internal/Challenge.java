package mcp.auth.internal;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@code Bearer} or {@code DPoP} challenge of a {@code WWW-Authenticate} header (RFC 6750 §3, RFC 9728
 * §5.1, RFC 9449 §7.1): its {@code resource_metadata}, {@code scope} and {@code error} parameters.
 *
 * @param parameters the challenge's parameters, names in lower case
 */
record Challenge(Map<String, String> parameters) {

    /** No challenge at all (a 401 without {@code WWW-Authenticate}, or one for another scheme). */
    static final Challenge NONE = new Challenge(Map.of());

    Challenge {
        parameters = Map.copyOf(parameters);
    }

    /** @return the {@code resource_metadata} URL, if given */
    Optional<String> resourceMetadata() {
        return parameter("resource_metadata");
    }

    /** @return the scopes the server asks for, if given */
    Optional<String> scope() {
        return parameter("scope");
    }

    /** @return the error code, if given (e.g. {@code insufficient_scope}) */
    Optional<String> error() {
        return parameter("error");
    }

    /** @return whether the server asks for a DPoP proof with its nonce (RFC 9449 §9) */
    boolean useDpopNonce() {
        return error().filter(Dpop.USE_DPOP_NONCE::equals).isPresent();
    }

    /** @return whether the server says the token lacks scopes (RFC 6750 §3.1) */
    boolean insufficientScope() {
        return error().filter("insufficient_scope"::equals).isPresent();
    }

    private Optional<String> parameter(String name) {
        return Optional.ofNullable(parameters.get(name)).filter(value -> !value.isBlank());
    }

    /**
     * Parses the first {@code Bearer} or {@code DPoP} challenge out of the header values (a header may hold
     * several challenges; other schemes are skipped). Lenient: a malformed header gives what could be read.
     *
     * @param headerValues every {@code WWW-Authenticate} value of a response
     * @return the challenge, or {@link #NONE}
     */
    static Challenge parse(List<String> headerValues) {
        for (String value : headerValues) {
            Challenge challenge = parseOne(value);
            if (challenge != null) {
                return challenge;
            }
        }
        return NONE;
    }

    private static Challenge parseOne(String header) {
        int i = 0;
        int n = header.length();
        while (i < n) {
            // A scheme token.
            while (i < n && (header.charAt(i) == ' ' || header.charAt(i) == ',')) {
                i++;
            }
            int start = i;
            while (i < n && header.charAt(i) != ' ' && header.charAt(i) != ',') {
                i++;
            }
            String scheme = header.substring(start, i);
            Map<String, String> parameters = new TreeMap<>();
            // Its auth-params: name=value or name="quoted", separated by commas, until the next scheme.
            while (i < n) {
                while (i < n && (header.charAt(i) == ' ' || header.charAt(i) == ',')) {
                    i++;
                }
                int nameStart = i;
                while (i < n && header.charAt(i) != '=' && header.charAt(i) != ' ' && header.charAt(i) != ',') {
                    i++;
                }
                if (i >= n || header.charAt(i) != '=') {
                    // Not a parameter: the next challenge's scheme (or a token68); rewind to it.
                    i = nameStart;
                    break;
                }
                String name = header.substring(nameStart, i).trim().toLowerCase(Locale.ROOT);
                i++;
                StringBuilder value = new StringBuilder();
                if (i < n && header.charAt(i) == '"') {
                    i++;
                    while (i < n && header.charAt(i) != '"') {
                        if (header.charAt(i) == '\\' && i + 1 < n) {
                            i++;
                        }
                        value.append(header.charAt(i++));
                    }
                    i++;
                } else {
                    while (i < n && header.charAt(i) != ',') {
                        value.append(header.charAt(i++));
                    }
                }
                parameters.put(name, value.toString().trim());
            }
            if (scheme.equalsIgnoreCase("Bearer") || scheme.equalsIgnoreCase(Dpop.SCHEME)) {
                return new Challenge(parameters);
            }
            if (i == start) {
                break;
            }
        }
        return null;
    }
}
