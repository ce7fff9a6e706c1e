package mcp.resourceserver.internal;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.ArrayList;
import java.util.List;
import mcp.api.McpException;
import mcp.api.McpJson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The issuer's metadata, read to find its {@code jwks_uri}: OpenID Connect Discovery's
 * {@code /.well-known/openid-configuration} first (what most identity providers serve), then RFC 8414's
 * {@code /.well-known/oauth-authorization-server}. Every fetch is bounded in time and size, follows no redirect,
 * and the document must name the configured issuer (RFC 8414, section 3.3), so that a document served elsewhere cannot
 * substitute another issuer's keys.
 */
final class IssuerDocuments {

    /** Far more than any real metadata document; a bound so that a wrong URL cannot fill the heap. */
    static final int MAX_BYTES = 512 * 1024;

    private final HttpClient http;
    private final Duration timeout;

    IssuerDocuments(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** @return the metadata locations to try for this issuer, in order */
    static List<URI> metadataLocations(URI issuer) {
        String text = issuer.toString();
        String trimmed = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        String path = issuer.getRawPath() == null ? "" : issuer.getRawPath();
        path = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String origin = issuer.getScheme() + "://" + issuer.getRawAuthority();
        List<URI> locations = new ArrayList<>();
        locations.add(URI.create(trimmed + "/.well-known/openid-configuration"));
        locations.add(URI.create(origin + "/.well-known/oauth-authorization-server" + path));
        if (!path.isEmpty()) {
            // The form RFC 8414 section 5 mentions for issuers with a path that were set up for OpenID Connect.
            locations.add(URI.create(origin + "/.well-known/openid-configuration" + path));
        }
        return locations;
    }

    /**
     * @param issuer the configured issuer
     * @return its {@code jwks_uri}
     * @throws McpException saying where it looked and what it found
     */
    URI jwksUri(URI issuer) {
        List<String> tried = new ArrayList<>();
        for (URI location : metadataLocations(issuer)) {
            JsonNode document;
            try {
                document = fetchJson(location);
            } catch (McpException e) {
                tried.add(e.getMessage());
                continue;
            }
            String named = document.path("issuer").asString("");
            if (!named.equals(issuer.toString())) {
                throw new McpException("the authorization server metadata at " + location + " names the issuer \""
                        + named + "\", not \"" + issuer + "\": configure the issuer exactly as it names itself");
            }
            String jwks = document.path("jwks_uri").asString("");
            if (jwks.isEmpty()) {
                throw new McpException("the authorization server metadata at " + location + " has no jwks_uri");
            }
            URI uri;
            try {
                uri = URI.create(jwks);
            } catch (IllegalArgumentException e) {
                throw new McpException("the jwks_uri at " + location + " is not a URL: " + jwks, e);
            }
            if (uri.getScheme() == null || !uri.getScheme().startsWith("http") || uri.getHost() == null) {
                throw new McpException("the jwks_uri at " + location + " is not an http(s) URL: " + jwks);
            }
            return uri;
        }
        throw new McpException("no authorization server metadata for the issuer " + issuer + ": " + String.join("; ",
                tried));
    }

    private JsonNode fetchJson(URI location) {
        HttpRequest request = HttpRequest.newBuilder(location).timeout(timeout).header("Accept", "application/json")
                .GET().build();
        // The request's own timeout ends at the headers: the body is read within a bound of its own.
        CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(request, info -> limited(info.statusCode()));
        HttpResponse<byte[]> response;
        try {
            response = exchange.get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new McpException(location + ": no answer within " + timeout.toMillis() * 2 + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new McpException(location + ": " + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : " " + cause.getMessage()), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException(location + ": interrupted", e);
        }
        if (response.statusCode() != 200) {
            throw new McpException(location + ": HTTP " + response.statusCode());
        }
        if (response.body() == null) {
            throw new McpException(location + ": larger than " + MAX_BYTES + " bytes");
        }
        JsonNode json;
        try {
            json = McpJson.mapper().readTree(response.body());
        } catch (JacksonException e) {
            throw new McpException(location + ": not JSON", e);
        }
        if (!json.isObject()) {
            throw new McpException(location + ": not a JSON object");
        }
        return json;
    }

    /** The body, or {@code null} once it passed {@link #MAX_BYTES} (the rest is not read). */
    private static HttpResponse.BodySubscriber<byte[]> limited(int status) {
        return new HttpResponse.BodySubscriber<>() {
            private final CompletableFuture<byte[]> body = new CompletableFuture<>();
            private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            private java.util.concurrent.Flow.Subscription subscription;

            @Override
            public java.util.concurrent.CompletionStage<byte[]> getBody() {
                return body;
            }

            @Override
            public void onSubscribe(java.util.concurrent.Flow.Subscription value) {
                subscription = value;
                value.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(List<java.nio.ByteBuffer> buffers) {
                for (java.nio.ByteBuffer buffer : buffers) {
                    if (body.isDone()) {
                        return;
                    }
                    if (bytes.size() + buffer.remaining() > MAX_BYTES) {
                        subscription.cancel();
                        body.complete(null);
                        return;
                    }
                    byte[] chunk = new byte[buffer.remaining()];
                    buffer.get(chunk);
                    bytes.writeBytes(chunk);
                }
            }

            @Override
            public void onError(Throwable failure) {
                body.completeExceptionally(failure);
            }

            @Override
            public void onComplete() {
                body.complete(bytes.toByteArray());
            }
        };
    }
}
