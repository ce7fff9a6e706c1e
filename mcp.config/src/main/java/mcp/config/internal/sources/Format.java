package mcp.config.internal.sources;

/** The syntax of a config file, and the words its users know for its parts. */
enum Format {
    /** JSON, read leniently (comments and trailing commas allowed). */
    JSON("JSON", "an object"),
    /** TOML (Codex). */
    TOML("TOML", "a table");

    private final String displayName;
    private final String anObject;

    Format(String displayName, String anObject) {
        this.displayName = displayName;
        this.anObject = anObject;
    }

    /** @return {@code JSON} or {@code TOML} */
    String displayName() {
        return displayName;
    }

    /** @return "an object" or "a table", for messages */
    String anObject() {
        return anObject;
    }
}
