package mcp.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Writes the server-sent events format (the WHATWG {@code text/event-stream}) as MCP uses it: one JSON-RPC message
 * per event, in a single {@code data} line (compact JSON has no line break), with an event id where the stream can be
 * resumed. {@link SseParser} reads what this writes.
 */
public final class SseFrames {

    private SseFrames() {
    }

    /**
     * @param id the event id, or {@code null} for none (a stream that cannot be resumed)
     * @param json one message as compact JSON text, without a line break
     * @return the event's bytes, blank line included
     */
    public static byte[] event(String id, String json) {
        Objects.requireNonNull(json, "json");
        if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("an event's data must be one line");
        }
        checkId(id);
        StringBuilder text = new StringBuilder(json.length() + 32);
        if (id != null) {
            text.append("id: ").append(id).append('\n');
        }
        text.append("data: ").append(json).append("\n\n");
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The first event of a resumable stream: an id and no data, so that the client has an id to resume from before
     * any message, and the reconnection time the server asks of it.
     *
     * @param id the event id
     * @param retryMillis the reconnection time, or a negative number for none
     * @return the event's bytes
     */
    public static byte[] priming(String id, long retryMillis) {
        Objects.requireNonNull(id, "id");
        checkId(id);
        String retry = retryMillis >= 0 ? "retry: " + retryMillis + "\n" : "";
        return ("id: " + id + "\n" + retry + "data: \n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** @return a comment line: keeps an idle stream's connection alive and is ignored by readers */
    public static byte[] keepAlive() {
        return ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);
    }

    private static void checkId(String id) {
        if (id != null && (id.indexOf('\n') >= 0 || id.indexOf('\r') >= 0 || id.indexOf('\0') >= 0)) {
            throw new IllegalArgumentException("an event id must be one line without NUL");
        }
    }
}
