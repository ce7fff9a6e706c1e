package mcp.manager;

import java.util.Set;
import mcp.api.spi.ElicitationUi;
import tools.jackson.databind.JsonNode;

/**
 * A {@link ServerRequestHandler} for {@code elicitation/create} that says which modes it presents, so that the
 * client declares exactly those ({@code elicitation: {form: {}, url: {}}}; none at all for an empty set), and
 * that hears when a URL-mode interaction is finished ({@code notifications/elicitation/complete}). A plain
 * handler registered under {@link ClientOptions#ELICITATION_METHOD} declares form mode only.
 */
public interface ElicitationHandler extends ServerRequestHandler {

    /** @return the modes the client declares; empty: the client declares no {@code elicitation} capability */
    Set<ElicitationUi.Mode> modes();

    /**
     * The server finished the out-of-band interaction of one of its URL requests. Called in order with the
     * session's other events; must not block for long. Default: nothing.
     *
     * @param elicitationId the id of the URL request
     */
    default void completed(String elicitationId) {
    }

    /**
     * The server refused a call until the user has finished on a page (the URL elicitation required error,
     * -32042, whose {@code data.elicitations} each become one such request): answers like {@link #handle}, but an
     * {@code accept} here means that the user has finished there, and the client then sends the call once more.
     * Default: {@link #handle}.
     *
     * @param params one URL-mode elicitation of the error ({@code mode}, {@code message}, {@code url},
     *     {@code elicitationId})
     * @return the answer, {@code {"action": ...}}
     * @throws Exception as {@link #handle}
     */
    default JsonNode beforeRetry(JsonNode params) throws Exception {
        return handle(params);
    }
}
