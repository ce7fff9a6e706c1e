package mcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import org.junit.jupiter.api.Test;

/**
 * How a stream is cut into chunks never changes the events it yields. {@link SseParserFuzzTest} checks
 * the same on what a fuzzer makes of any bytes.
 */
class SseParserProperties {

    @Test
    void chunkingDoesNotMatter() {
        Cases.run(300, gen -> {
            byte[] bytes = stream(gen).getBytes(StandardCharsets.UTF_8);
            List<Integer> cuts = gen.list(1, 20, () -> gen.ints(1, 17));
            assertEquals(parse(List.of(bytes)), parse(chunks(bytes, cuts)));
        });
    }

    /** The bytes cut into chunks of the given sizes, in turn. */
    static List<byte[]> chunks(byte[] bytes, List<Integer> cuts) {
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
        return chunks;
    }

    /** Every event a parser yields for the chunks, and its last id and retry at the end. */
    static List<String> parse(List<byte[]> chunks) throws SseParser.TooLargeException {
        List<String> out = new ArrayList<>();
        SseParser parser = new SseParser(1 << 20, e -> out.add(e.type() + "|" + e.lastEventId() + "|" + e.text()));
        for (byte[] chunk : chunks) {
            parser.feed(chunk);
        }
        out.add("last=" + parser.lastEventId() + " retry=" + parser.retryMillis());
        return out;
    }

    private static String stream(Gen gen) {
        StringBuilder stream = new StringBuilder();
        for (int i = gen.ints(0, 30); i > 0; i--) {
            String value = gen.string("ab{}\": é😀", 0, 8);
            stream.append(switch (gen.weighted(1, 1, 1, 1, 1)) {
                case 0 -> "data: " + value;
                case 1 -> "data:" + value;
                case 2 -> "id: " + value;
                case 3 -> "retry: " + gen.ints(0, 5000);
                default -> gen.pick("event: message", "event: endpoint", ": comment", "", "data");
            }).append(gen.pick("\n", "\r\n", "\r"));
        }
        return stream.toString();
    }
}
