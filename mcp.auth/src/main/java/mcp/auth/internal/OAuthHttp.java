package mcp.auth.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import mcp.api.McpException;
import mcp.api.McpJson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP exchanges of the OAuth client: metadata GETs and form POSTs to token and registration
 * endpoints.
 *
 * <p>Every exchange is bounded twice: by the timeout as a whole (response headers and body together:
 * a server that sends headers and then drips the body is cut off too) and by {@value #MAX_BODY} bytes
 * of body. Messages name the method, the endpoint (without query), the HTTP status and the OAuth
 * {@code error} / {@code error_description}; never a token or a secret, not even when a server echoes
 * one back.
 */
final class OAuthHttp {

    /** The largest metadata or token response read; a token response is a few kilobytes. */
    static final int MAX_BODY = 256 * 1024;

    private static final String REDACTED = "<redacted>";

    private final HttpClient client;
    private final Duration timeout;
    private final String userAgent;

    OAuthHttp(HttpClient client, Duration timeout, String userAgent) {
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("the timeout must be positive");
        }
        this.client = client;
        this.timeout = timeout;
        this.userAgent = userAgent;
    }

    /** @return the bound of one exchange */
    Duration timeout() {
        return timeout;
    }

    /** An answer: status, body text (bounded) and the response headers (names in lower case). */
    record Answer(int status, String body, Map<String, List<String>> headers) {
        Answer {
            Map<String, List<String>> lower = new java.util.TreeMap<>();
            headers.forEach((name, values) -> lower.put(name.toLowerCase(java.util.Locale.ROOT), List.copyOf(values)));
            headers = Map.copyOf(lower);
        }

        /** An answer without headers. */
        Answer(int status, String body) {
            this(status, body, Map.of());
        }

        boolean ok() {
            return status >= 200 && status <= 299;
        }

        /** @return the first value of a header, if any */
        Optional<String> header(String name) {
            List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
            return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
        }
    }

    /** GETs a JSON document; empty on 4xx (not there), an error on anything else unexpected. */
    Optional<JsonNode> getJson(URI uri) {
        Answer answer = exchange(HttpRequest.newBuilder(uri).GET().header("Accept", "application/json"), uri, "GET");
        if (answer.status() >= 400 && answer.status() <= 499) {
            return Optional.empty();
        }
        if (!answer.ok()) {
            throw new McpException("GET " + Urls.redact(uri) + " answered HTTP " + answer.status()
                    + excerpt(answer.body()));
        }
        return Optional.of(parse(answer.body(), "GET " + Urls.redact(uri)));
    }

    /** POSTs a JSON document (client registration). */
    Answer postJson(URI uri, JsonNode body) {
        return exchange(HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json"), uri, "POST");
    }

    /** POSTs a form, with an optional {@code Authorization} header. */
    Answer postForm(URI uri, Map<String, String> form, Optional<String> authorization) {
        return postForm(uri, form, authorization, Map.of());
    }

    /** POSTs a form, with an optional {@code Authorization} header and more headers (a {@code DPoP} proof). */
    Answer postForm(URI uri, Map<String, String> form, Optional<String> authorization, Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofString(form(form)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
        authorization.ifPresent(value -> builder.header("Authorization", value));
        headers.forEach(builder::header);
        return exchange(builder, uri, "POST");
    }

    private Answer exchange(HttpRequest.Builder builder, URI uri, String method) {
        HttpRequest request = builder.timeout(timeout).setHeader("User-Agent", userAgent).build();
        CompletableFuture<HttpResponse<byte[]>> sent = client.sendAsync(request, info -> new BoundedBody(MAX_BODY));
        HttpResponse<byte[]> response;
        try {
            // The request's own timeout ends at the headers; this bound covers the body too.
            response = sent.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            sent.cancel(true);
            Thread.currentThread().interrupt();
            throw new McpException(method + " " + Urls.redact(uri) + " was interrupted", e);
        } catch (TimeoutException e) {
            sent.cancel(true);
            throw new McpException(method + " " + Urls.redact(uri) + " failed: no complete response within "
                    + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // The JDK may wrap the body subscriber's failure in an IOException of its own.
            if (cause instanceof IOException && cause.getCause() instanceof BoundedBody.TooLargeException) {
                cause = cause.getCause();
            }
            throw new McpException(method + " " + Urls.redact(uri) + " failed: " + describe(cause), cause);
        }
        return new Answer(response.statusCode(), new String(response.body(), StandardCharsets.UTF_8),
                response.headers().map());
    }

    private String describe(Throwable cause) {
        if (cause instanceof BoundedBody.TooLargeException) {
            return "the response is larger than " + MAX_BODY + " bytes";
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

    /** Parses JSON; the error names the exchange and the position, never the content. */
    static JsonNode parse(String body, String what) {
        try {
            JsonNode node = McpJson.mapper().readTree(body);
            if (node == null || !node.isObject()) {
                throw new McpException(what + " did not answer with a JSON object");
            }
            return node;
        } catch (JacksonException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw new McpException(what + " did not answer with valid JSON" + where);
        }
    }

    /** @return the OAuth {@code error} code of an answer, or "" when it has none (or is no JSON object) */
    static String errorCode(Answer answer) {
        try {
            JsonNode node = McpJson.mapper().readTree(answer.body());
            return node != null && node.isObject() ? node.path("error").asString("") : "";
        } catch (JacksonException e) {
            return "";
        }
    }

    /** {@link #oauthError(Answer, Collection)} for an exchange that sent no secret. */
    static String oauthError(Answer answer) {
        return oauthError(answer, List.of());
    }

    /**
     * The OAuth error of a failed token or registration answer, for messages: {@code error} and
     * {@code error_description} only, else the status alone. A server may echo what it was sent (a code,
     * a token, the client secret): every one of {@code secrets} is cut out of what it says. A 401 or
     * {@code invalid_client} adds a hint at the client's credentials.
     *
     * @param answer the answer
     * @param secrets what the request carried that must not appear in a message
     * @return {@code HTTP <status>[, error <error>][: <description>][; check ...]}
     */
    static String oauthError(Answer answer, Collection<String> secrets) {
        StringBuilder out = new StringBuilder("HTTP ").append(answer.status());
        String error = "";
        try {
            JsonNode node = McpJson.mapper().readTree(answer.body());
            if (node != null && node.isObject()) {
                error = node.path("error").asString("");
                if (!error.isEmpty()) {
                    out.append(", error ").append(scrub(error, secrets));
                }
                String description = node.path("error_description").asString("");
                if (!description.isEmpty()) {
                    out.append(": ").append(scrub(description, secrets));
                }
            }
        } catch (JacksonException e) {
            // Not JSON: the status says enough.
        }
        if (answer.status() == 401 || error.equals("invalid_client")) {
            out.append("; check the client id and secret registered for this server");
        }
        return out.toString();
    }

    /**
     * Makes server text safe for a message: one line, at most 200 characters, none of {@code secrets}
     * (those of at least 4 characters, as sent and form-encoded) in it.
     */
    static String scrub(String text, Collection<String> secrets) {
        String out = text;
        for (String secret : secrets) {
            if (secret != null && secret.length() >= 4) {
                out = out.replace(secret, REDACTED).replace(encode(secret), REDACTED);
            }
        }
        return oneLine(out);
    }

    private static String excerpt(String body) {
        String line = oneLine(body);
        return line.isEmpty() ? "" : "; body: " + line;
    }

    private static String oneLine(String text) {
        String line = text.replaceAll("\\p{Cntrl}+", " ").strip();
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    /** {@code application/x-www-form-urlencoded}. */
    static String form(Map<String, String> fields) {
        StringJoiner out = new StringJoiner("&");
        fields.forEach((key, value) -> out.add(encode(key) + "=" + encode(value)));
        return out.toString();
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /**
     * {@code client_secret_basic}: {@code Basic base64(urlencode(id) ":" urlencode(secret))}, RFC 6749
     * §2.3.1. A space becomes {@code %20} rather than {@code +}: servers that decode with a plain
     * percent-decoder (JavaScript's {@code decodeURIComponent}) read both right.
     */
    static String basic(String clientId, String clientSecret) {
        String pair = encode(clientId).replace("+", "%20") + ":" + encode(clientSecret).replace("+", "%20");
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }
}
