package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class ToolNamesProperties {

    @Property(tries = 1000)
    void everyNameIsValidAndDeterministic(@ForAll("names") String server, @ForAll("names") String tool) {
        String name = ToolNames.baseName(server, tool);
        assertTrue(name.matches("^[a-z0-9_]{1,64}$"), name);
        assertEquals(name, ToolNames.baseName(server, tool));
    }

    @Property(tries = 300)
    void distinctToolsNeverShareAName(@ForAll("toolSets") List<ToolNames.Key> keys) {
        List<ToolNames.Key> distinct = keys.stream().distinct().toList();
        List<String> names = ToolNames.assign(distinct);
        assertEquals(distinct.size(), new HashSet<>(names).size(), () -> distinct + " -> " + names);
        names.forEach(name -> assertTrue(name.matches("^[a-z0-9_]{1,64}$"), name));
        assertEquals(names, ToolNames.assign(distinct));
    }

    /** The one-pass sanitizer is the rule as two regular expressions say it (the first implementation). */
    @Property(tries = 2000)
    void sanitizeFollowsTheRegexRule(@ForAll("names") String part) {
        String lower = part.toLowerCase(java.util.Locale.ROOT);
        String expected = lower.replaceAll("[^a-z0-9_]+", "_").replaceAll("_{2,}", "_").replaceAll("^_+|_+$", "");
        assertEquals(expected, ToolNames.sanitize(part));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(90),
                Arbitraries.strings().withChars("aA_-. 1é").ofMaxLength(80),
                Arbitraries.strings().alpha().numeric().withChars('_').ofMinLength(50).ofMaxLength(120));
    }

    /** Small alphabets so that many tools collide. */
    @Provide
    Arbitrary<List<ToolNames.Key>> toolSets() {
        Arbitrary<String> part = Arbitraries.strings().withChars("aA_-b").ofMaxLength(4);
        Arbitrary<String> longPart = Arbitraries.strings().withChars("ab_").ofMinLength(55).ofMaxLength(70);
        Arbitrary<String> any = Arbitraries.oneOf(part, part, longPart);
        return Combinators.combine(any, any).as(ToolNames.Key::new).list().ofMaxSize(40);
    }
}
