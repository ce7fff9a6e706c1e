package mcp.transport.http.internal.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;

/** Credential ids and file names: every id has one safe name, and the name gives the id back. */
class FileAuthStorageProperties {

    // 26 characters of up to three UTF-8 bytes each always fit the longest name.
    @Property(tries = 500)
    void theFileNameIsSafeAndGivesTheIdBack(@ForAll @StringLength(min = 1, max = 26) String id) {
        if (id.codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            return; // lone surrogates are refused, see FileAuthStorageTest
        }
        String name = FileAuthStorage.fileName(id);
        assertTrue(name.matches("[a-z0-9_%-][a-z0-9_%.-]*\\.json"), name);
        assertEquals(name.toLowerCase(Locale.ROOT), name, "no two ids differ only in case on a case-blind file system");
        assertEquals(Optional.of(id), FileAuthStorage.credentialId(name));
    }

    @Property(tries = 500)
    void twoIdsNeverShareAFile(@ForAll @StringLength(min = 1, max = 8) String a,
            @ForAll @StringLength(min = 1, max = 8) String b) {
        if (a.equals(b) || (a + b).codePoints().anyMatch(c -> Character.getType(c) == Character.SURROGATE)) {
            return;
        }
        assertNotEquals(FileAuthStorage.fileName(a), FileAuthStorage.fileName(b));
    }
}
