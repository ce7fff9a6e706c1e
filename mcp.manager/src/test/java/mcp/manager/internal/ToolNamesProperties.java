package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import mcp.proptest.Cases;
import mcp.proptest.Gen;
import org.junit.jupiter.api.Test;

class ToolNamesProperties {

    private static final String ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    @Test
    void everyNameIsValidAndDeterministic() {
        Cases.run(1000, gen -> {
            String server = name(gen);
            String tool = name(gen);
            String name = ToolNames.baseName(server, tool);
            assertTrue(name.matches("^[a-z0-9_]{1,64}$"), name);
            assertEquals(name, ToolNames.baseName(server, tool));
        });
    }

    @Test
    void distinctToolsNeverShareAName() {
        Cases.run(300, gen -> {
            List<ToolNames.Key> distinct = toolSet(gen).stream().distinct().toList();
            List<String> names = ToolNames.assign(distinct);
            assertEquals(distinct.size(), new HashSet<>(names).size(), () -> distinct + " -> " + names);
            names.forEach(name -> assertTrue(name.matches("^[a-z0-9_]{1,64}$"), name));
            assertEquals(names, ToolNames.assign(distinct));
        });
    }

    /** The one-pass sanitizer is the rule as two regular expressions say it (the first implementation). */
    @Test
    void sanitizeFollowsTheRegexRule() {
        Cases.run(2000, gen -> {
            String part = name(gen);
            String lower = part.toLowerCase(Locale.ROOT);
            String expected = lower.replaceAll("[^a-z0-9_]+", "_").replaceAll("_{2,}", "_").replaceAll("^_+|_+$", "");
            assertEquals(expected, ToolNames.sanitize(part));
        });
    }

    private static String name(Gen gen) {
        return switch (gen.weighted(1, 1, 1)) {
            case 0 -> gen.string(0, 90);
            case 1 -> gen.string("aA_-. 1é", 0, 80);
            default -> gen.string(ALNUM + "_", 50, 120);
        };
    }

    /** Small alphabets so that many tools collide. */
    private static List<ToolNames.Key> toolSet(Gen gen) {
        return gen.list(0, 40, () -> new ToolNames.Key(part(gen), part(gen)));
    }

    private static String part(Gen gen) {
        return gen.weighted(2, 1) == 0 ? gen.string("aA_-b", 0, 4) : gen.string("ab_", 55, 70);
    }
}
