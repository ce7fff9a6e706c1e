package mcp.bench.http.jetty;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What both servers of the HTTP choice say and keep, written the same in {@code mcp.bench.http.jdk}'s copy of
 * this class: finding a member of a JSON-RPC message without a JSON library (the client of the bench writes the
 * messages, so a scan is enough, and the measurement stays on HTTP), the replies, and the state of a flood.
 */
final class Wire {

    /** The largest request body accepted; a larger one is answered 413. */
    static final int DEFAULT_MAX_BODY = 1 << 20;

    private Wire() {
    }

    /**
     * @param json a JSON-RPC message written by the bench's client
     * @param name a member name that occurs once in it
     * @return the member's value as written (a string without its quotes), or null when absent
     */
    static String field(String json, String name) {
        int at = json.indexOf('"' + name + '"');
        if (at < 0) {
            return null;
        }
        int i = json.indexOf(':', at + name.length() + 2) + 1;
        while (i < json.length() && json.charAt(i) == ' ') {
            i++;
        }
        if (i < json.length() && json.charAt(i) == '"') {
            int end = json.indexOf('"', i + 1);
            return end < 0 ? null : json.substring(i + 1, end);
        }
        int end = i;
        while (end < json.length() && ",}] ".indexOf(json.charAt(end)) < 0) {
            end++;
        }
        return json.substring(i, end);
    }

    /** @return the id as it goes back into the reply: a number as is, a string quoted */
    static String idToken(String json) {
        int at = json.indexOf("\"id\"");
        if (at < 0) {
            return "null";
        }
        String value = field(json, "id");
        int colon = json.indexOf(':', at + 4) + 1;
        while (colon < json.length() && json.charAt(colon) == ' ') {
            colon++;
        }
        return colon < json.length() && json.charAt(colon) == '"' ? '"' + value + '"' : value;
    }

    /** @return the reply to a request: a result of one text item */
    static byte[] reply(String request, String text) {
        return ("{\"jsonrpc\":\"2.0\",\"id\":" + idToken(request) + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
                + text + "\"}]}}").getBytes(StandardCharsets.UTF_8);
    }

    /** @return one SSE event carrying this JSON */
    static byte[] event(byte[] json) {
        byte[] head = "event: message\ndata: ".getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[head.length + json.length + 2];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(json, 0, out, head.length, json.length);
        out[out.length - 2] = '\n';
        out[out.length - 1] = '\n';
        return out;
    }

    /** @return the event pushed onto a GET stream by {@code bench/push} */
    static byte[] pushEvent(String seq) {
        return event(("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"seq\":" + seq + "}}")
                .getBytes(StandardCharsets.UTF_8));
    }

    /** @return an event of about {@code size} bytes for a flood */
    static byte[] floodEvent(int size) {
        String prefix = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"";
        String suffix = "\"}}";
        int pad = Math.max(0, size - prefix.length() - suffix.length() - 23);
        return event((prefix + "x".repeat(pad) + suffix).getBytes(StandardCharsets.UTF_8));
    }

    /** The progress of one flood: written by its thread, read by {@code /stats}. */
    static final class Flood {
        final long target;
        final long startNanos = System.nanoTime();
        final AtomicLong written = new AtomicLong();
        volatile long lastProgressNanos = startNanos;
        volatile String state = "writing";
        volatile String error = "";
        volatile long endedAfterMs = -1;

        Flood(long target) {
            this.target = target;
        }

        void wrote(int bytes) {
            written.addAndGet(bytes);
            lastProgressNanos = System.nanoTime();
        }

        void ended(Throwable failure) {
            endedAfterMs = (System.nanoTime() - startNanos) / 1_000_000;
            if (failure == null) {
                state = "done";
            } else {
                error = String.valueOf(failure).replace('"', '\'').replace('\\', '/').replace('\n', ' ');
                state = "failed";
            }
        }

        String json() {
            return String.format(Locale.ROOT, "{\"target\":%d,\"written\":%d,\"state\":\"%s\",\"error\":\"%s\","
                    + "\"endedAfterMs\":%d,\"msSinceProgress\":%d}", target, written.get(), state, error, endedAfterMs,
                    (System.nanoTime() - lastProgressNanos) / 1_000_000);
        }
    }
}
