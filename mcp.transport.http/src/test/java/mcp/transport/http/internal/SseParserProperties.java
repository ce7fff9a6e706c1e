package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** How a stream is cut into chunks never changes the events it yields. */
class SseParserProperties {

    @Property(tries = 300)
    void chunkingDoesNotMatter(@ForAll("streams") String stream, @ForAll @Size(min = 1, max = 20) List<@IntRange(min = 1,
            max = 17) Integer> cuts) throws Exception {
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        List<String> whole = parse(List.of(bytes));
        List<byte[]> chunks = new ArrayList<>();
        int at = 0;
        int i = 0;
        while (at < bytes.length) {
            int size = Math.min(cuts.get(i++ % cuts.size()), bytes.length - at);
            byte[] chunk = new byte[size];
            System.arraycopy(bytes, at, chunk, 0, size);
            chunks.add(chunk);
            at += size;
        }
        assertEquals(whole, parse(chunks));
    }

    private static List<String> parse(List<byte[]> chunks) throws SseParser.TooLargeException {
        List<String> out = new ArrayList<>();
        SseParser parser = new SseParser(1 << 20, e -> out.add(e.type() + "|" + e.lastEventId() + "|" + e.text()));
        for (byte[] chunk : chunks) {
            parser.feed(chunk);
        }
        out.add("last=" + parser.lastEventId() + " retry=" + parser.retryMillis());
        return out;
    }

    @Provide
    Arbitrary<String> streams() {
        Arbitrary<String> value = Arbitraries.strings().withChars("ab{}\": é😀").ofMaxLength(8);
        Arbitrary<String> line = Arbitraries.oneOf(
                value.map(v -> "data: " + v),
                value.map(v -> "data:" + v),
                value.map(v -> "id: " + v),
                Arbitraries.integers().between(0, 5000).map(n -> "retry: " + n),
                Arbitraries.of("event: message", "event: endpoint", ": comment", "", "data"));
        Arbitrary<String> ending = Arbitraries.of("\n", "\r\n", "\r");
        return net.jqwik.api.Combinators.combine(line, ending).as((l, e) -> l + e).list().ofMaxSize(30)
                .map(parts -> String.join("", parts));
    }
}
