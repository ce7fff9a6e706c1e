package mcp.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import mcp.api.internal.OwnerOnlyFiles;

/**
 * The bearer token the gateway's HTTP endpoint requires: 256 random bits, made at the first start and kept in an
 * owner-only file ({@code serve-token} in mcp-host's state directory), so that every agent configured once keeps
 * working across restarts, and no other user of the machine can call the gateway. The token is for the gateway
 * alone: it is never passed to a server.
 */
public final class GatewayToken {

    /** The file's name in the state directory. */
    public static final String FILE = "serve-token";

    private static final int BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private GatewayToken() {
    }

    /**
     * @param stateDirectory mcp-host's state directory ({@code mcp.api.UserDirectories#state()})
     * @return the token, made and stored now if there was none (or the file held no usable token)
     * @throws UncheckedIOException when the file cannot be read or written
     */
    public static String loadOrCreate(Path stateDirectory) {
        Objects.requireNonNull(stateDirectory, "stateDirectory");
        Path file = stateDirectory.resolve(FILE);
        try {
            String stored = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (stored.length() >= 32 && stored.chars().allMatch(c -> c > ' ' && c < 127)) {
                return stored;
            }
        } catch (NoSuchFileException e) {
            // The first start: made below.
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the gateway's token " + file + ": " + e.getMessage(), e);
        }
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        try {
            OwnerOnlyFiles.createDirectory(stateDirectory);
            OwnerOnlyFiles.replace(file, (token + "\n").getBytes(StandardCharsets.UTF_8), FILE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot store the gateway's token in " + file + ": " + e.getMessage(), e);
        }
        return token;
    }
}
