package mcp.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import mcp.api.McpException;
import mcp.api.StoredCredential;
import mcp.proptest.Trees;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Whatever a credential file holds, loading it gives the credential or an {@link McpException} that names
 * the file and never quotes its content (a token must not reach a log); and a credential it loads, it
 * saves so that it loads equal again.
 *
 * <p>The fuzzer's bytes are the file, with each {@code SECRET} replaced by a token drawn from the input.
 * {@code mvn verify} replays the inputs under {@code FileAuthStorageFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/testing.md).
 */
class FileAuthStorageFuzzTest {

    private static final byte[] PLACEHOLDER = "SECRET".getBytes(StandardCharsets.US_ASCII);
    private static Path directory;

    @FuzzTest(maxDuration = "5m")
    void anyFileLoadsOrFailsClearlyWithoutQuotingIt(FuzzedDataProvider data) throws IOException {
        String secret = "tok" + Long.toHexString(data.consumeLong()) + "Z";
        byte[] content = replace(data.consumeRemainingAsBytes(), secret.getBytes(StandardCharsets.US_ASCII));
        FileAuthStorage storage = new FileAuthStorage(directory);
        Path file = storage.file("fuzz");
        Files.write(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        Optional<StoredCredential> loaded;
        try {
            loaded = storage.load("fuzz");
        } catch (McpException e) {
            assertTrue(e.getMessage().contains(file.toString()), e::getMessage);
            assertFalse(e.getMessage().contains(secret), e::getMessage);
            return;
        }
        StoredCredential credential = loaded.orElseThrow();
        storage.save("fuzz", credential);
        assertEquals(Optional.of(credential), storage.load("fuzz"));
    }

    private static byte[] replace(byte[] bytes, byte[] with) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
        for (int i = 0; i < bytes.length; i++) {
            if (i + PLACEHOLDER.length <= bytes.length
                    && java.util.Arrays.equals(bytes, i, i + PLACEHOLDER.length, PLACEHOLDER, 0, PLACEHOLDER.length)) {
                out.writeBytes(with);
                i += PLACEHOLDER.length - 1;
            } else {
                out.write(bytes[i]);
            }
        }
        return out.toByteArray();
    }

    @BeforeAll
    static void createDirectory() throws IOException {
        directory = Files.createTempDirectory("mcp-auth-fuzz");
    }

    @AfterAll
    static void deleteDirectory() throws IOException {
        Trees.delete(directory);
    }
}
