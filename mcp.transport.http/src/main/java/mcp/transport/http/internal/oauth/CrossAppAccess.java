package mcp.transport.http.internal.oauth;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.transport.http.HttpTransports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The client side of Cross-App Access (Enterprise-Managed Authorization, the MCP extension SEP-990):
 * the user's ID token from the enterprise identity provider becomes an access token for an MCP server
 * without a browser, in two token requests.
 *
 * <ol>
 *   <li>{@link #requestIdJag}: an RFC 8693 token exchange at the IdP's token endpoint turns the ID token
 *       into an Identity Assertion JWT Authorization Grant (ID-JAG) whose audience is the MCP server's
 *       authorization server and whose {@code resource} is the MCP server.</li>
 *   <li>{@link #requestAccessToken}: an RFC 7523 JWT bearer grant at the authorization server's token
 *       endpoint trades the ID-JAG for an access token.</li>
 * </ol>
 *
 * <p>Client authentication, at both endpoints: {@code client_id} in the form body, and, when the client has
 * a secret, HTTP Basic ({@code client_secret_basic}, id and secret form-encoded first as RFC 6749 §2.3.1
 * says). RFC 6749 §3.2.1 lets a client name itself with {@code client_id} next to its authentication.
 *
 * <p>Every request is bounded by its timeout (response headers and body together) and its answer by
 * {@value #MAX_RESPONSE_BYTES} bytes. Messages name the step, the endpoint (without query), the HTTP
 * status and the OAuth {@code error} / {@code error_description}; tokens and secrets appear nowhere, not
 * even when a server echoes them back.
 */
final class CrossAppAccess {

    private static final Logger LOG = LoggerFactory.getLogger(CrossAppAccess.class);

    static final String TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
    static final String JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
    static final String ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
    static final String ID_TOKEN_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

    /** The most a token endpoint may answer; a token response is a few kilobytes. */
    static final int MAX_RESPONSE_BYTES = 1 << 20;

    private static final String REDACTED = "<redacted>";

    private CrossAppAccess() {
    }

    /**
     * An OAuth client registered at one server: its id and, for a confidential client, its secret.
     *
     * @param id the client id
     * @param secret the client secret; empty for a public client
     */
    record Client(String id, Optional<String> secret) {
        Client {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(secret, "secret");
            if (id.isBlank()) {
                throw new IllegalArgumentException("the client id is blank");
            }
            secret = secret.filter(value -> !value.isEmpty());
        }

        /** @return a public client (no secret) */
        static Client of(String id) {
            return new Client(id, Optional.empty());
        }

        /** @return a confidential client */
        static Client of(String id, String secret) {
            return new Client(id, Optional.of(Objects.requireNonNull(secret, "secret")));
        }

        @Override
        public String toString() {
            return "Client[id=" + id + ", secret=" + (secret.isPresent() ? REDACTED : "none") + "]";
        }
    }

    /**
     * A successful token response of the authorization server (RFC 6749 §5.1).
     *
     * @param accessToken the access token
     * @param tokenType the token type, as sent (usually {@code Bearer})
     * @param refreshToken the refresh token, if one was issued
     * @param expiresIn the lifetime of the access token, if the server said
     * @param scope the granted scope, if the server said (RFC 6749: absent means as requested)
     */
    record TokenResponse(String accessToken, String tokenType, Optional<String> refreshToken,
            Optional<Duration> expiresIn, Optional<String> scope) {
        TokenResponse {
            Objects.requireNonNull(accessToken, "accessToken");
            Objects.requireNonNull(tokenType, "tokenType");
            Objects.requireNonNull(refreshToken, "refreshToken");
            Objects.requireNonNull(expiresIn, "expiresIn");
            Objects.requireNonNull(scope, "scope");
        }

        @Override
        public String toString() {
            return "TokenResponse[accessToken=" + REDACTED + ", tokenType=" + tokenType + ", refreshToken="
                    + (refreshToken.isPresent() ? REDACTED : "none") + ", expiresIn="
                    + expiresIn.map(Duration::toString).orElse("unknown") + ", scope=" + scope.orElse("unknown") + "]";
        }
    }

    /**
     * Step 1: exchanges the user's ID token for an ID-JAG at the enterprise IdP (RFC 8693 token exchange).
     *
     * <p>Form: {@code grant_type=urn:ietf:params:oauth:grant-type:token-exchange},
     * {@code requested_token_type=urn:ietf:params:oauth:token-type:id-jag}, {@code subject_token},
     * {@code subject_token_type=urn:ietf:params:oauth:token-type:id_token}, {@code audience},
     * {@code resource}, {@code scope} when given, {@code client_id}.
     *
     * @param http the client to send with
     * @param tokenEndpoint the IdP's token endpoint
     * @param idpClient this host's client at the IdP
     * @param idToken the user's ID token from the IdP
     * @param audience the issuer identifier of the MCP server's authorization server, exactly as its metadata
     *     states it
     * @param resource the MCP server's resource identifier, exactly as its protected resource metadata states it
     * @param scope the scopes to ask for (space-separated), if any
     * @param timeout the bound on the whole exchange
     * @return the ID-JAG (the response's {@code access_token})
     * @throws McpException if the IdP cannot be reached, refuses, or answers without an ID-JAG
     */
    static String requestIdJag(HttpClient http, URI tokenEndpoint, Client idpClient, String idToken, String audience,
            String resource, Optional<String> scope, Duration timeout) {
        Objects.requireNonNull(idToken, "idToken");
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(scope, "scope");
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", TOKEN_EXCHANGE_GRANT);
        form.put("requested_token_type", ID_JAG_TOKEN_TYPE);
        form.put("subject_token", idToken);
        form.put("subject_token_type", ID_TOKEN_TOKEN_TYPE);
        form.put("audience", audience);
        form.put("resource", resource);
        scope.filter(value -> !value.isBlank()).ifPresent(value -> form.put("scope", value));
        String step = "The token exchange (ID token for ID-JAG) at the identity provider";
        List<String> secrets = secrets(idpClient, idToken);
        JsonNode body = post(http, step, tokenEndpoint, idpClient, form, timeout, secrets);
        String idJag = requiredString(body, "access_token", step, tokenEndpoint);
        JsonNode issued = body.get("issued_token_type");
        // RFC 8693 makes issued_token_type required; an IdP that leaves it out still gets the benefit of the doubt,
        // one that names another type has not issued an ID-JAG.
        if (issued != null && !issued.isNull() && !ID_JAG_TOKEN_TYPE.equals(issued.asString())) {
            throw new McpException(step + " " + redact(tokenEndpoint) + " issued a token of type \""
                    + scrub(issued.asString(), secrets) + "\", not an ID-JAG (" + ID_JAG_TOKEN_TYPE + ")");
        }
        LOG.debug("Cross-App Access: {} issued an ID-JAG", redact(tokenEndpoint));
        return idJag;
    }

    /**
     * Step 2: trades an ID-JAG for an access token at the MCP server's authorization server (RFC 7523 JWT
     * bearer grant).
     *
     * <p>Form: {@code grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer}, {@code assertion}, {@code scope}
     * when given, {@code client_id}; HTTP Basic when the client has a secret.
     *
     * @param http the client to send with
     * @param tokenEndpoint the authorization server's token endpoint
     * @param client this host's client at the authorization server (the client the ID-JAG was issued for)
     * @param idJag the ID-JAG from {@link #requestIdJag}
     * @param scope the scopes to ask for (space-separated), if any
     * @param timeout the bound on the whole exchange
     * @return the token response
     * @throws McpException if the authorization server cannot be reached, refuses, or answers without an access
     *     token and its type
     */
    static TokenResponse requestAccessToken(HttpClient http, URI tokenEndpoint, Client client, String idJag,
            Optional<String> scope, Duration timeout) {
        Objects.requireNonNull(idJag, "idJag");
        Objects.requireNonNull(scope, "scope");
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", JWT_BEARER_GRANT);
        form.put("assertion", idJag);
        scope.filter(value -> !value.isBlank()).ifPresent(value -> form.put("scope", value));
        String step = "The JWT bearer grant (ID-JAG for access token) at the authorization server";
        List<String> secrets = secrets(client, idJag);
        JsonNode body = post(http, step, tokenEndpoint, client, form, timeout, secrets);
        String accessToken = requiredString(body, "access_token", step, tokenEndpoint);
        String tokenType = requiredString(body, "token_type", step, tokenEndpoint);
        TokenResponse response = new TokenResponse(accessToken, tokenType, optionalString(body, "refresh_token"),
                expiresIn(body), optionalString(body, "scope"));
        LOG.debug("Cross-App Access: {} issued an access token ({}, expires in {}, scope {})", redact(tokenEndpoint),
                tokenType, response.expiresIn().map(Duration::toString).orElse("unknown"),
                response.scope().orElse("unknown"));
        return response;
    }

    /** POSTs the form with the client's authentication and returns the JSON object of a 2xx answer. */
    private static JsonNode post(HttpClient http, String step, URI endpoint, Client client, Map<String, String> form,
            Duration timeout, List<String> secrets) {
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("the timeout must be positive");
        }
        Map<String, String> fields = new LinkedHashMap<>(form);
        fields.put("client_id", client.id());
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .timeout(timeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .header("User-Agent", "mcp-host/" + HttpTransports.VERSION)
                .POST(HttpRequest.BodyPublishers.ofString(formEncode(fields), StandardCharsets.UTF_8));
        client.secret().ifPresent(secret -> request.header("Authorization", basic(client.id(), secret)));

        HttpResponse<byte[]> response;
        CompletableFuture<HttpResponse<byte[]>> sent = http.sendAsync(request.build(), info -> new LimitedBody());
        try {
            response = sent.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            sent.cancel(true);
            Thread.currentThread().interrupt();
            throw new McpException(step + " " + redact(endpoint) + " was interrupted");
        } catch (TimeoutException e) {
            sent.cancel(true);
            throw new McpException(step + " " + redact(endpoint) + " failed: no complete response within "
                    + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // The JDK may wrap the body subscriber's failure in an IOException of its own.
            if (cause instanceof IOException && cause.getCause() instanceof LimitedBody.TooLargeException) {
                cause = cause.getCause();
            }
            throw new McpException(step + " " + redact(endpoint) + " failed: " + describe(cause, timeout), cause);
        }

        int status = response.statusCode();
        JsonNode body = parseObject(response.body());
        if (status / 100 != 2) {
            throw new McpException(refusal(step, endpoint, status, body, secrets));
        }
        if (body == null) {
            throw new McpException(step + " " + redact(endpoint) + " answered HTTP " + status
                    + " but the body is not a JSON object (Content-Type: "
                    + scrub(response.headers().firstValue("Content-Type").orElse("none"), secrets) + ")");
        }
        return body;
    }

    /** The message for a non-2xx answer: status, and the OAuth error fields when the body has them. */
    private static String refusal(String step, URI endpoint, int status, JsonNode body, List<String> secrets) {
        StringBuilder out = new StringBuilder(step).append(' ').append(redact(endpoint)).append(" failed: HTTP ")
                .append(status);
        String error = body == null ? null : textOrNull(body.get("error"));
        String description = body == null ? null : textOrNull(body.get("error_description"));
        if (error != null) {
            out.append(", error \"").append(scrub(error, secrets)).append('"');
        }
        if (description != null) {
            out.append(": ").append(scrub(description, secrets));
        }
        if (error == null && description == null) {
            out.append(" (no OAuth error in the body)");
        }
        if (status == 401 || "invalid_client".equals(error)) {
            out.append("; check the client id and secret registered for this server");
        }
        return out.toString();
    }

    private static String describe(Throwable cause, Duration timeout) {
        if (cause instanceof LimitedBody.TooLargeException) {
            return "the response is larger than " + MAX_RESPONSE_BYTES + " bytes";
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return "could not connect within " + timeout.toMillis() + " ms";
        }
        if (cause instanceof HttpTimeoutException) {
            return "no response within " + timeout.toMillis() + " ms";
        }
        if (cause instanceof ConnectException) {
            return "could not connect (" + (cause.getMessage() == null ? "connection refused" : cause.getMessage()) + ")";
        }
        if (cause instanceof IOException) {
            return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        }
        return String.valueOf(cause);
    }

    /** @return the body as a JSON object, or null when it is empty, not JSON or not an object */
    private static JsonNode parseObject(byte[] body) {
        if (body.length == 0) {
            return null;
        }
        try {
            JsonNode node = McpJson.mapper().readTree(body);
            return node != null && node.isObject() ? node : null;
        } catch (JacksonException e) {
            // Never the parser's message: it may quote the body, and the body may hold a token.
            return null;
        }
    }

    private static String requiredString(JsonNode body, String name, String step, URI endpoint) {
        String value = textOrNull(body.get(name));
        if (value == null || value.isEmpty()) {
            throw new McpException(step + " " + redact(endpoint) + " answered without \"" + name + "\"");
        }
        return value;
    }

    private static Optional<String> optionalString(JsonNode body, String name) {
        return Optional.ofNullable(textOrNull(body.get(name))).filter(value -> !value.isEmpty());
    }

    private static String textOrNull(JsonNode node) {
        return node != null && node.isString() ? node.stringValue() : null;
    }

    /** {@code expires_in} as a number of seconds; some servers send it as a string of digits. */
    private static Optional<Duration> expiresIn(JsonNode body) {
        JsonNode node = body.get("expires_in");
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (node.isIntegralNumber() && node.canConvertToLong() && node.longValue() >= 0) {
            return Optional.of(Duration.ofSeconds(node.longValue()));
        }
        if (node.isString() && node.stringValue().matches("[0-9]{1,12}")) {
            return Optional.of(Duration.ofSeconds(Long.parseLong(node.stringValue())));
        }
        LOG.debug("Cross-App Access: ignoring an expires_in that is not a whole number of seconds");
        return Optional.empty();
    }

    private static List<String> secrets(Client client, String token) {
        List<String> secrets = new ArrayList<>();
        secrets.add(token);
        client.secret().ifPresent(secrets::add);
        return secrets;
    }

    /** Makes server text safe for a message: one line, at most 300 characters, no secret of ours in it. */
    static String scrub(String text, List<String> secrets) {
        String out = text;
        for (String secret : secrets) {
            if (secret.length() >= 4) {
                out = out.replace(secret, REDACTED);
            }
        }
        out = out.replaceAll("[\\p{Cntrl}]+", " ").strip();
        return out.length() > 300 ? out.substring(0, 300) + "..." : out;
    }

    /** {@code Basic base64(urlencode(id) ":" urlencode(secret))}, RFC 6749 §2.3.1. */
    static String basic(String id, String secret) {
        String pair = formComponent(id) + ":" + formComponent(secret);
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Form-encodes one credential for HTTP Basic. A space becomes {@code %20} rather than {@code +}: servers
     * that decode with a plain percent-decoder (JavaScript's {@code decodeURIComponent}) read both right.
     */
    private static String formComponent(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String formEncode(Map<String, String> fields) {
        return fields.entrySet().stream()
                .map(field -> URLEncoder.encode(field.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    /** @return the URL without user info, query or fragment: safe for messages and logs */
    static String redact(URI uri) {
        if (uri.getHost() == null) {
            return "<" + uri.getScheme() + " URL>";
        }
        StringBuilder out = new StringBuilder();
        out.append(uri.getScheme()).append("://").append(uri.getHost().contains(":") && !uri.getHost().startsWith("[")
                ? "[" + uri.getHost() + "]" : uri.getHost());
        if (uri.getPort() >= 0) {
            out.append(':').append(uri.getPort());
        }
        out.append(uri.getRawPath() == null ? "" : uri.getRawPath());
        if (uri.getRawQuery() != null) {
            out.append("?...");
        }
        return out.toString();
    }

    /** Collects a response body of at most {@link #MAX_RESPONSE_BYTES}; cancels the stream beyond that. */
    private static final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private Flow.Subscription subscription;

        /** The body went over the limit. */
        static final class TooLargeException extends IOException {
            private static final long serialVersionUID = 1L;

            TooLargeException() {
                super("response body larger than " + MAX_RESPONSE_BYTES + " bytes");
            }
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription value) {
            subscription = value;
            value.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (result.isDone()) {
                return;
            }
            for (ByteBuffer item : items) {
                if (bytes.size() + (long) item.remaining() > MAX_RESPONSE_BYTES) {
                    subscription.cancel();
                    result.completeExceptionally(new TooLargeException());
                    return;
                }
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable error) {
            result.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }
    }
}
