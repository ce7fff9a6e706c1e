package mcp.config.internal.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The entries of goose's extensions block found by lines, and the layouts that are refused rather than edited. */
class YamlTextTest {

    @Test
    void entriesAreFoundByTheirLinesWithQuotedNamesAndComments() {
        String text = "a: 1\nextensions:  # mine\n  \"my ext\":\n    cmd: x\n# between\n  'b''s':\n    cmd: y\n"
                + "\n# after\nc: 2\n";
        YamlText.Block block = YamlText.block(text, "extensions");
        assertEquals(text.indexOf("extensions"), block.start());
        assertEquals(text.indexOf("\n# after"), block.end());
        assertEquals(List.of("my ext", "b's"), block.entries().stream().map(YamlText.Entry::name).toList());
        assertEquals("  'b''s':\n    cmd: y\n", text.substring(block.entries().get(1).start(),
                block.entries().get(1).end()));
        assertEquals("  ", block.indent());
    }

    @Test
    void anAbsentKeyIsNullAndAnEmptyOneInline() {
        assertNull(YamlText.block("a: 1\n", "extensions"));
        assertTrue(YamlText.block("extensions: {}\n", "extensions").inline());
    }

    @Test
    void layoutsThatCannotBeEditedByLinesAreRefused() {
        for (String text : List.of(
                "extensions: {a: {cmd: x}}\n",
                "extensions:\n  a: &x\n    cmd: x\n  b: *x\n",
                "extensions:\n  a:\n    <<: {cmd: x}\n",
                "extensions:\n\ta:\n\t\tcmd: x\n",
                "a: 1\n---\nextensions:\n  a: {}\n",
                "extensions:\n  a: {}\nextensions:\n  b: {}\n",
                "{extensions: {}}\n")) {
            assertThrows(IllegalArgumentException.class, () -> YamlText.block(text, "extensions"), text);
        }
    }
}
