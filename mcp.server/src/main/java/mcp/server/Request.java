package mcp.server;

import java.util.Objects;
import mcp.api.jsonrpc.RequestId;
import tools.jackson.databind.node.ObjectNode;

/**
 * A client's request as a {@link RequestHandler} sees it, in either era. The params are as the client sent them,
 * less what the server consumed: the {@code inputResponses} and {@code requestState} of a multi round-trip request
 * (the server routes them to the {@link RequestContext#ask asks} they answer). The {@code _meta} stays, envelope
 * included, so that a gateway can pass on what it does not know (trace context, for one).
 *
 * @param id the request's JSON-RPC id (of the round in flight, for a multi round-trip request)
 * @param method the method
 * @param params the params; an empty object when the request had none
 */
public record Request(RequestId id, String method, ObjectNode params) {

    /** Validates. */
    public Request {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(params, "params");
    }
}
