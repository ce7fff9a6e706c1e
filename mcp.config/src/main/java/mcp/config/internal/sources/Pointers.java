package mcp.config.internal.sources;

/** JSON pointers (RFC 6901) for problem locations and {@code ServerSpec.location}. */
final class Pointers {

    private Pointers() {
    }

    /**
     * @param pointer a pointer, {@code ""} for the root
     * @param key an object key or array index, as written
     * @return the pointer to that child, with {@code ~} and {@code /} escaped as {@code ~0} and {@code ~1}
     */
    static String child(String pointer, String key) {
        // Order matters: escaping '/' first would turn its '~1' into '~01'.
        return pointer + "/" + key.replace("~", "~0").replace("/", "~1");
    }

    static String child(String pointer, int index) {
        return pointer + "/" + index;
    }
}
