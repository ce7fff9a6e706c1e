package mcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.List;

/**
 * Whatever bytes a server streams, the parser never throws (but for a line over its limit), and how the
 * stream is cut into chunks never changes the events, the last event id or the retry it yields.
 *
 * <p>{@code mvn verify} replays the inputs under {@code SseParserFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/testing.md).
 */
class SseParserFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void anyStreamYieldsTheSameEventsHoweverItIsCut(FuzzedDataProvider data) throws Exception {
        List<Integer> cuts = new ArrayList<>();
        for (int i = data.consumeInt(1, 20); i > 0; i--) {
            cuts.add(data.consumeInt(1, 17));
        }
        byte[] bytes = data.consumeRemainingAsBytes();
        assertEquals(SseParserProperties.parse(List.of(bytes)),
                SseParserProperties.parse(SseParserProperties.chunks(bytes, cuts)));
    }
}
