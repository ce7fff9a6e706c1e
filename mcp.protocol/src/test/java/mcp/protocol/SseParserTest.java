package mcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SSE parser on the cases of the WHATWG format that MCP servers produce. */
class SseParserTest {

    private final List<SseEvent> events = new ArrayList<>();

    private SseParser parse(String text, long limit) throws SseParser.TooLargeException {
        SseParser parser = new SseParser(limit, events::add);
        parser.feed(text.getBytes(StandardCharsets.UTF_8));
        return parser;
    }

    private List<String> rendered() {
        return events.stream().map(e -> e.type() + "|" + e.lastEventId() + "|" + e.text()).toList();
    }

    @Test
    void eventsWithTypesIdsAndMultiLineData() throws Exception {
        parse("event: endpoint\ndata: /messages?sessionId=1\n\nid: 7\ndata: {\"a\":\ndata: 1}\n\n: comment\n\ndata:x\n\n", 1000);
        assertEquals(List.of("endpoint|null|/messages?sessionId=1", "message|7|{\"a\":\n1}", "message|7|x"), rendered());
    }

    @Test
    void primingEventsSetTheIdAndRetryButAreNotDispatched() throws Exception {
        SseParser parser = parse("id: e1\nretry: 500\ndata: \n\n", 1000);
        assertEquals(List.of(), rendered());
        assertEquals("e1", parser.lastEventId());
        assertEquals(500, parser.retryMillis());
    }

    @Test
    void everyLineEndingWorksEvenSplitAcrossChunks() throws Exception {
        SseParser parser = new SseParser(1000, events::add);
        for (String chunk : List.of("data: a\r", "\ndata: b\r", "\r", "data: c\n", "\n")) {
            parser.feed(chunk.getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(List.of("message|null|a\nb", "message|null|c"), rendered());
    }

    @Test
    void aBomIsDroppedAndAnIncompleteLastEventIsNot() throws Exception {
        parse("\uFEFFdata: first\n\ndata: never dispatched", 1000);
        assertEquals(List.of("message|null|first"), rendered());
    }

    @Test
    void badRetryAndIdWithNulAreIgnored() throws Exception {
        SseParser parser = parse("retry: 5s\nid: a\u0000b\ndata: x\n\n", 1000);
        assertEquals(-1, parser.retryMillis());
        assertNull(parser.lastEventId());
    }

    @Test
    void dataOverTheLimitThrows() {
        assertThrows(SseParser.TooLargeException.class, () -> parse("data: " + "x".repeat(200) + "\n\n", 100));
        assertThrows(SseParser.TooLargeException.class, () -> parse("data: " + "x".repeat(60) + "\ndata: " + "y".repeat(60)
                + "\n\n", 100));
    }

    @Test
    void anEndlessLineIsCutAtTheLimit() {
        SseParser parser = new SseParser(100, events::add);
        assertThrows(SseParser.TooLargeException.class, () -> {
            for (int i = 0; i < 100; i++) {
                parser.feed("zzzzzzzzzz".getBytes(StandardCharsets.UTF_8));
            }
        });
    }
}
