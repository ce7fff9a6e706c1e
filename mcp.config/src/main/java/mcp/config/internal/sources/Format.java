package mcp.config.internal.sources;

/** The syntax of a config file, and the words its users know for its parts. */
enum Format {
    /** JSON, read leniently (comments and trailing commas allowed). */
    JSON("JSON", "an object"),
    /** TOML (Codex). */
    TOML("TOML", "a table"),
    /** YAML (goose). */
    YAML("YAML", "a mapping");

    private final String displayName;
    private final String anObject;

    Format(String displayName, String anObject) {
        this.displayName = displayName;
        this.anObject = anObject;
    }

    /** @return {@code JSON}, {@code TOML} or {@code YAML} */
    String displayName() {
        return displayName;
    }

    /** @return "an object", "a table" or "a mapping", for messages */
    String anObject() {
        return anObject;
    }
}
