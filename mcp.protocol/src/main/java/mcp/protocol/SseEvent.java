package mcp.protocol;

import java.nio.charset.StandardCharsets;

/**
 * One server-sent event.
 *
 * @param type the event type ({@code message} when the stream named none)
 * @param data the data, UTF-8, never empty
 * @param lastEventId the last event id at dispatch time, or {@code null} when the stream has sent none
 */
public record SseEvent(String type, byte[] data, String lastEventId) {

    /** @return the data as text */
    public String text() {
        return new String(data, StandardCharsets.UTF_8);
    }
}
