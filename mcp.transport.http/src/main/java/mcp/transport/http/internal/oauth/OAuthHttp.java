package mcp.transport.http.internal.oauth;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import mcp.api.McpException;
import mcp.api.McpJson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP exchanges of the OAuth client: metadata GETs and form POSTs to token and registration
 * endpoints, with bounded bodies and errors that never quote a secret.
 */
final class OAuthHttp {

    /** The largest metadata or token response read. */
    static final int MAX_BODY = 256 * 1024;

    private final HttpClient client;
    private final Duration timeout;
    private final String userAgent;

    OAuthHttp(HttpClient client, Duration timeout, String userAgent) {
        this.client = client;
        this.timeout = timeout;
        this.userAgent = userAgent;
    }

    /** @return the HTTP client */
    HttpClient client() {
        return client;
    }

    /** @return the bound of each exchange */
    Duration timeout() {
        return timeout;
    }

    /** An answer: status and body text (bounded). */
    record Answer(int status, String body) {
        boolean ok() {
            return status >= 200 && status <= 299;
        }
    }

    /** GETs a JSON document; empty on 4xx (not there), an error on anything else unexpected. */
    Optional<JsonNode> getJson(URI uri) {
        Answer answer = exchange(HttpRequest.newBuilder(uri).GET().header("Accept", "application/json"), uri, "GET");
        if (answer.status() >= 400 && answer.status() <= 499) {
            return Optional.empty();
        }
        if (!answer.ok()) {
            throw new McpException("GET " + redact(uri) + " answered HTTP " + answer.status() + excerpt(answer.body()));
        }
        return Optional.of(parse(answer.body(), "GET " + redact(uri)));
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
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofString(form(form)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
        authorization.ifPresent(value -> builder.header("Authorization", value));
        return exchange(builder, uri, "POST");
    }

    private Answer exchange(HttpRequest.Builder builder, URI uri, String method) {
        builder.timeout(timeout).setHeader("User-Agent", userAgent);
        try {
            HttpResponse<byte[]> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
            byte[] bytes = response.body();
            int length = Math.min(bytes.length, MAX_BODY);
            return new Answer(response.statusCode(), new String(bytes, 0, length, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new McpException(method + " " + redact(uri) + " failed: " + (e.getMessage() == null
                    ? e.getClass().getSimpleName() : e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException(method + " " + redact(uri) + " was interrupted", e);
        }
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

    /**
     * The OAuth error of a failed token or registration answer, for messages: {@code error} and
     * {@code error_description} only (they never hold secrets), else the status alone.
     */
    static String oauthError(Answer answer) {
        StringBuilder out = new StringBuilder("HTTP ").append(answer.status());
        try {
            JsonNode node = McpJson.mapper().readTree(answer.body());
            if (node != null && node.isObject()) {
                String error = node.path("error").asString("");
                if (!error.isEmpty()) {
                    out.append(", error ").append(oneLine(error));
                }
                String description = node.path("error_description").asString("");
                if (!description.isEmpty()) {
                    out.append(": ").append(oneLine(description));
                }
            }
        } catch (JacksonException e) {
            // Not JSON: the status says enough.
        }
        return out.toString();
    }

    private static String excerpt(String body) {
        String line = oneLine(body);
        return line.isEmpty() ? "" : "; body: " + line;
    }

    private static String oneLine(String text) {
        String line = text.replace('\r', ' ').replace('\n', ' ').trim();
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

    /** {@code client_secret_basic} (RFC 6749 §2.3.1: both parts form-encoded first). */
    static String basic(String clientId, String clientSecret) {
        String pair = encode(clientId) + ":" + encode(clientSecret);
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    /** @return the URL without user info, query or fragment */
    static String redact(URI uri) {
        if (uri.getHost() == null) {
            return "<" + uri.getScheme() + " URL>";
        }
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "")
                + (uri.getRawPath() == null ? "" : uri.getRawPath()) + (uri.getRawQuery() == null ? "" : "?...");
    }
}
