/**
 * JTokkit 1.1.0 (<a href="https://github.com/knuddelsgmbh/jtokkit">knuddelsgmbh/jtokkit</a>, MIT license), a
 * tokenizer of OpenAI's byte-pair encodings ({@code o200k_base}, {@code cl100k_base}, ...), with this descriptor
 * added: its own jar has none and no {@code Automatic-Module-Name}, and the {@code mcp.host} runtime image is built
 * by jlink, which takes named modules only. The classes and the encoding files are JTokkit's, unchanged; it needs
 * nothing but {@code java.base}. mcp-host uses it for token estimates ({@code mcp.manager.TokenCounter}).
 */
module com.knuddels.jtokkit {
    exports com.knuddels.jtokkit;
    exports com.knuddels.jtokkit.api;
}
