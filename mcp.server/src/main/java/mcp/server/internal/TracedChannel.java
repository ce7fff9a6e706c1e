package mcp.server.internal;

import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcResponse;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.protocol.internal.McpTracing;
import mcp.server.Caller;

/**
 * A channel whose answer ends the request's {@code SERVER} span: the span covers the time from the request's arrival
 * until its answer is sent, as the conventions define {@code mcp.server.operation.duration}.
 */
final class TracedChannel implements Channel {

    private final Channel inner;
    final McpTracing.Operation operation;

    private TracedChannel(Channel inner, McpTracing.Operation operation) {
        this.inner = inner;
        this.operation = operation;
    }

    /** @return the channel, traced when there is something to trace */
    static Channel of(Channel channel, McpTracing.Operation operation) {
        return operation == McpTracing.Operation.NOOP ? channel : new TracedChannel(channel, operation);
    }

    /** @return a scope in which the request's span is current, for the handler's own requests to continue it */
    static AutoCloseable current(Channel channel) {
        return channel instanceof TracedChannel traced ? traced.operation.makeCurrent() : null;
    }

    @Override
    public boolean send(JsonRpcMessage message) {
        return inner.send(message);
    }

    @Override
    public boolean carriesRequests() {
        return inner.carriesRequests();
    }

    @Override
    public void finish(JsonRpcResponse response, int httpStatus) {
        end(response);
        inner.finish(response, httpStatus);
    }

    @Override
    public void finish(JsonRpcResponse response, int httpStatus, Map<String, String> headers) {
        end(response);
        inner.finish(response, httpStatus, headers);
    }

    @Override
    public void abandon() {
        operation.end(null, new CancellationException("cancelled by the client"));
        inner.abandon();
    }

    @Override
    public Caller caller() {
        return inner.caller();
    }

    @Override
    public CompletableFuture<Void> gone() {
        return inner.gone();
    }

    private void end(JsonRpcResponse response) {
        if (response instanceof JsonRpcSuccess success) {
            operation.end(success.result(), null);
        } else if (response instanceof JsonRpcError error) {
            operation.end(null, new McpProtocolException(error.code(), error.message(), null));
        }
    }
}
