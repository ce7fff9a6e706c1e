package mcp.transport.stdio.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StderrTailTest {

    @Test
    void keepsTheLastLinesWithinEveryBound() throws IOException {
        StderrTail tail = new StderrTail(3, 10, 25);
        List<String> logged = new ArrayList<>();
        String input = "one\r\ntwo\n\nthree\n" + "x".repeat(100_000) + "\nfour";
        tail.drain(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), logged::add);

        assertEquals(List.of("one", "two", "", "three", "xxxxxxxxxx", "four"), logged);
        // Blank lines are not kept; the 100,000-char line is cut to 10.
        assertEquals("three\nxxxxxxxxxx\nfour", tail.tail());
        assertEquals("xxxxxxxxxx\nfour", tail.tail(2));
    }

    @Test
    void theTotalBoundDropsTheOldestLines() {
        StderrTail tail = new StderrTail(50, 10, 25);
        for (int i = 0; i < 10; i++) {
            tail.add("line-" + i + "-xxxxxxxx");
        }
        String kept = tail.tail();
        assertTrue(kept.replace("\n", "").length() <= 25, kept);
        assertTrue(kept.endsWith("line-9-xxx"), kept);
    }

    @Test
    void emptyWhenNothingWasWritten() throws IOException {
        StderrTail tail = new StderrTail(5, 10, 50);
        tail.drain(new ByteArrayInputStream(new byte[0]), line -> { });
        assertTrue(tail.isEmpty());
        assertEquals("", tail.tail());
        assertEquals("", tail.tail(3));
    }
}
