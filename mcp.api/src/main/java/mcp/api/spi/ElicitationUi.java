package mcp.api.spi;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Asks the user what an MCP server wants to know ({@code elicitation/create}), in either mode of the
 * specification: a <em>form</em> of a restricted JSON Schema whose answer goes back to the server, or a
 * <em>URL</em> the user opens in a browser to do something there (log in, pay, enter a secret) that the client
 * never sees. The user answers with {@link Action#ACCEPT accept}, {@link Action#DECLINE decline} or
 * {@link Action#CANCEL cancel}. The host calls it for requests of both protocol eras: a server request in the
 * 2025 era, an input request of a multi round-trip request in the 2026-07-28 era.
 *
 * <p>Calls come on a worker thread of the host and may block while the user thinks; several servers may ask at
 * once, so an implementation with one terminal or window serializes them itself. An implementation must bound
 * its own waits (the server's request has its own timeout, after which a late answer is dropped).
 *
 * <p>A URL must never reach the model's context: it may carry a one-time token. Show it to the user, open it, and
 * do not log it above DEBUG.
 *
 * <p>mcp-host ships no provider: the {@code mcp-host shell} asks on its terminal with one of its own. Without a
 * UI the host does not declare the {@code elicitation} capability and declines a request that comes anyway.
 * Found by {@link java.util.ServiceLoader} through {@link Providers}, or passed to the host's builder.
 */
public interface ElicitationUi {

    /** @return a stable id, e.g. {@code terminal} */
    String id();

    /**
     * @return the modes this UI can present; the client declares exactly these in its {@code elicitation}
     *     capability (default: both)
     */
    default Set<Mode> modes() {
        return Set.of(Mode.FORM, Mode.URL);
    }

    /**
     * Asks the user to fill a form. The host checks an accepted answer against the schema (and completes it with
     * the schema's defaults) before it goes to the server; an answer that does not fit is declined.
     *
     * @param request what the server asks
     * @return the user's answer; {@link Response#accept(ObjectNode)} with the content
     */
    Response form(FormRequest request);

    /**
     * Asks the user whether to open a URL and, if so, opens it. {@link Action#ACCEPT} means that the user agreed
     * to open it, not that the interaction there is finished: the server says that later
     * ({@link #completed(String, String)}).
     *
     * @param request what the server asks
     * @return the user's answer, without content
     */
    Response url(UrlRequest request);

    /**
     * The server said that the out-of-band interaction of a URL request is finished
     * ({@code notifications/elicitation/complete}). Default: nothing.
     *
     * @param serverName the server
     * @param elicitationId the id of its URL request
     */
    default void completed(String serverName, String elicitationId) {
    }

    /** The two modes of elicitation. */
    enum Mode {
        /** A form of a restricted JSON Schema, answered in band. */
        FORM,
        /** A URL the user opens; what happens there stays out of band. */
        URL
    }

    /** The user's three answers. */
    enum Action {
        /** The user answered (form) or agreed to open the URL (url). */
        ACCEPT,
        /** The user said no. */
        DECLINE,
        /** The user dismissed the question without deciding. */
        CANCEL;

        /** @return the wire value: {@code accept}, {@code decline} or {@code cancel} */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * A form-mode request.
     *
     * @param serverName the server that asks, for what the user sees
     * @param message why the server asks
     * @param requestedSchema a flat object schema of strings (with {@code format}, {@code enum} or {@code oneOf}
     *     titles), numbers and integers (with {@code minimum}/{@code maximum}) and booleans, each with an optional
     *     {@code default}, and {@code required}
     */
    record FormRequest(String serverName, String message, JsonNode requestedSchema) {
        /** Checks. */
        public FormRequest {
            Objects.requireNonNull(serverName, "serverName");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(requestedSchema, "requestedSchema");
        }
    }

    /**
     * A URL-mode request.
     *
     * @param serverName the server that asks, for what the user sees
     * @param message why the server asks and what to do there
     * @param url the page to open: {@code http} or {@code https} (the host declines any other scheme)
     * @param elicitationId the server's id for this request, named again when it is complete; empty when the
     *     server gave none (the 2026-07-28 era's stateless requests may leave it out)
     * @param callWaits whether the server refused a call until the user has finished on the page (its answer was
     *     the URL elicitation required error, -32042): then {@link Action#ACCEPT} means that the user has finished
     *     there, and the host sends the call once more; a UI should open the page and wait for the user's word
     */
    record UrlRequest(String serverName, String message, URI url, String elicitationId, boolean callWaits) {
        /** Checks. */
        public UrlRequest {
            Objects.requireNonNull(serverName, "serverName");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(elicitationId, "elicitationId");
        }

        /**
         * A request the server made itself ({@code elicitation/create}), which no call waits on.
         *
         * @param serverName the server that asks
         * @param message why the server asks
         * @param url the page to open
         * @param elicitationId the server's id for this request, or empty
         */
        public UrlRequest(String serverName, String message, URI url, String elicitationId) {
            this(serverName, message, url, elicitationId, false);
        }

        /** Leaves the URL out: it may carry a token. */
        @Override
        public String toString() {
            return "UrlRequest[serverName=" + serverName + ", host=" + url.getHost() + ", elicitationId="
                    + elicitationId + ", callWaits=" + callWaits + "]";
        }
    }

    /**
     * The user's answer.
     *
     * @param action what the user did
     * @param content the form's values when a form was accepted; empty otherwise
     */
    record Response(Action action, Optional<ObjectNode> content) {
        /** Checks: content only with a form's accept. */
        public Response {
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(content, "content");
            if (content.isPresent() && action != Action.ACCEPT) {
                throw new IllegalArgumentException("only an accepted form has content");
            }
        }

        /**
         * @param content the form's values, by property name
         * @return an accepted form
         */
        public static Response accept(ObjectNode content) {
            return new Response(Action.ACCEPT, Optional.of(content.deepCopy()));
        }

        /** @return an accepted URL request: the user agreed to open it */
        public static Response accept() {
            return new Response(Action.ACCEPT, Optional.empty());
        }

        /** @return the user said no */
        public static Response decline() {
            return new Response(Action.DECLINE, Optional.empty());
        }

        /** @return the user dismissed the question */
        public static Response cancel() {
            return new Response(Action.CANCEL, Optional.empty());
        }
    }
}
