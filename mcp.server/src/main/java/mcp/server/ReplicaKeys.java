package mcp.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that replicas of one server share, so that any of them can serve what another started: the sealed session
 * ids of the handshake era and the {@code requestState} of the stateless revision's {@code input_required} rounds.
 *
 * <p>A key ring: each key has an id; the first one (the current key) seals, every one opens, so a key is rotated by
 * putting a new key first and dropping the old one once what it sealed has expired. The text form, from a file or an
 * environment variable, is one key a line (or separated by commas or spaces): {@code ID:BASE64}, the id of 1 to 32
 * letters, digits, {@code -} or {@code _}, the key at least 32 random bytes in standard or URL-safe Base64; blank lines
 * and lines starting with {@code #} are skipped. Each purpose gets a key of its own, derived from the key with
 * HMAC-SHA256 and a label, so a session key never opens a request state or the other way round.
 *
 * <p>Secret: {@link #toString()} names the key ids only; no message of this class quotes a key.
 */
public final class ReplicaKeys {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    /** The least key length: what AES-256 and HMAC-SHA256 want. */
    public static final int MIN_KEY_BYTES = 32;

    private final String current;
    private final Map<String, byte[]> keys;

    private ReplicaKeys(String current, Map<String, byte[]> keys) {
        this.current = current;
        this.keys = keys;
    }

    /**
     * @param current the id of the key that seals
     * @param keys every key by id, the current one among them (each at least {@link #MIN_KEY_BYTES} bytes)
     * @return the ring
     */
    public static ReplicaKeys of(String current, Map<String, byte[]> keys) {
        Objects.requireNonNull(current, "current");
        Map<String, byte[]> copy = new LinkedHashMap<>();
        keys.forEach((id, key) -> {
            if (!ID.matcher(id).matches()) {
                throw new IllegalArgumentException("a key id is 1 to 32 letters, digits, - or _; not \"" + id + "\"");
            }
            if (key.length < MIN_KEY_BYTES) {
                throw new IllegalArgumentException("key \"" + id + "\" has " + key.length + " bytes; at least "
                        + MIN_KEY_BYTES + " random bytes are needed");
            }
            copy.put(id, key.clone());
        });
        if (!copy.containsKey(current)) {
            throw new IllegalArgumentException("the current key \"" + current + "\" is not among the keys " + copy
                    .keySet());
        }
        return new ReplicaKeys(current, copy);
    }

    /**
     * Reads the text form (see the class comment); the first key is the current one.
     *
     * @param text the keys
     * @param source where they come from, for error messages (a file name, an environment variable's name)
     * @return the ring
     * @throws IllegalArgumentException naming the source and the entry (by position and id, never the key) when an
     *     entry is malformed, an id repeats, or there is no key
     */
    public static ReplicaKeys parse(String text, String source) {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        String first = null;
        int position = 0;
        for (String line : text.split("\\R")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            for (String entry : trimmed.split("[,\\s]+")) {
                if (entry.isEmpty()) {
                    continue;
                }
                position++;
                int colon = entry.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException(source + ": entry " + position + " is not ID:BASE64");
                }
                String id = entry.substring(0, colon);
                if (!ID.matcher(id).matches()) {
                    throw new IllegalArgumentException(source + ": entry " + position + " has a bad key id (1 to 32 "
                            + "letters, digits, - or _)");
                }
                byte[] key;
                try {
                    String value = entry.substring(colon + 1).replace('-', '+').replace('_', '/');
                    key = Base64.getMimeDecoder().decode(value);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(source + ": key \"" + id + "\" is not Base64");
                }
                if (key.length < MIN_KEY_BYTES) {
                    throw new IllegalArgumentException(source + ": key \"" + id + "\" has " + key.length + " bytes; "
                            + "at least " + MIN_KEY_BYTES + " random bytes are needed (e.g. head -c 32 /dev/urandom "
                            + "| base64)");
                }
                if (keys.putIfAbsent(id, key) != null) {
                    throw new IllegalArgumentException(source + ": key id \"" + id + "\" appears twice");
                }
                if (first == null) {
                    first = id;
                }
            }
        }
        if (first == null) {
            throw new IllegalArgumentException(source + " has no key (one ID:BASE64 a line, the first seals)");
        }
        return new ReplicaKeys(first, keys);
    }

    /** @return the id of the key that seals */
    public String currentId() {
        return current;
    }

    /** @return every key id, the current one first */
    public List<String> ids() {
        return List.copyOf(keys.keySet());
    }

    /**
     * The key of one purpose, derived from the key of that id: HMAC-SHA256 of the label under the key (one
     * HKDF-Expand block), so that purposes never share a key.
     *
     * @param id a key id
     * @param label the purpose (e.g. {@code "mcp-host session v1"})
     * @return 32 bytes, secret; empty for an unknown id
     */
    public Optional<byte[]> derive(String id, String label) {
        byte[] key = keys.get(id);
        if (key == null) {
            return Optional.empty();
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.UTF_8));
            return Optional.of(mac.doFinal(new byte[] {1}));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    /** @return the key ids, never a key */
    @Override
    public String toString() {
        return "ReplicaKeys[current=" + current + ", ids=" + keys.keySet() + "]";
    }
}
