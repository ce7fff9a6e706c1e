package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.Optional;
import mcp.proptest.Cases;
import org.junit.jupiter.api.Test;

/**
 * Credential ids and file names: every id has one safe name, and the name gives the id back. What the
 * storage makes of a file's content is {@link FileAuthStorageFuzzTest}'s part.
 */
class FileAuthStorageProperties {

    // 26 characters of up to three UTF-8 bytes each always fit the longest name.
    @Test
    void theFileNameIsSafeAndGivesTheIdBack() {
        Cases.run(500, gen -> {
            String id = gen.wellFormedString(1, 26); // lone surrogates are refused, see FileAuthStorageTest
            String name = FileAuthStorage.fileName(id);
            assertTrue(name.matches("[a-z0-9_%-][a-z0-9_%.-]*\\.json"), name);
            assertEquals(name.toLowerCase(Locale.ROOT), name, "no two ids differ only in case on a case-blind file system");
            assertEquals(Optional.of(id), FileAuthStorage.credentialId(name));
        });
    }

    @Test
    void twoIdsNeverShareAFile() {
        Cases.run(500, gen -> {
            // Small alphabets with case and escapes, so that near-equal ids are common.
            String a = gen.oneOf(() -> gen.wellFormedString(1, 8), () -> gen.string("aA%._-é", 1, 8));
            String b = gen.oneOf(() -> gen.wellFormedString(1, 8), () -> gen.string("aA%._-é", 1, 8));
            if (!a.equals(b)) {
                assertNotEquals(FileAuthStorage.fileName(a), FileAuthStorage.fileName(b), a + " / " + b);
            }
        });
    }
}
