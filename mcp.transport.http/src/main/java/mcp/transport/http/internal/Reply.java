package mcp.transport.http.internal;

/**
 * What an HTTP response carried, decided by {@link ReplyHandler} from its status and content type
 * as soon as its headers arrive.
 */
sealed interface Reply {

    /** A 2xx JSON body, read whole (at most the message limit). */
    record Json(byte[] body) implements Reply {
    }

    /** A 2xx {@code text/event-stream}, still being read when the response completes. */
    record Stream(SseStream stream) implements Reply {
    }

    /** A 2xx without a body worth reading (202 Accepted, or a body the caller did not want). */
    record Empty() implements Reply {
    }

    /**
     * A non-2xx status, or a 2xx whose content type is neither JSON nor SSE.
     *
     * @param excerpt the body's first bytes, printable, possibly empty
     * @param body the body's first bytes as received (as many as the handler was asked to keep), possibly
     *     empty: a 2026-07-28 server's 4xx carries a JSON-RPC error there
     */
    record Failure(String excerpt, byte[] body) implements Reply {
        Failure(String excerpt) {
            this(excerpt, new byte[0]);
        }
    }
}
