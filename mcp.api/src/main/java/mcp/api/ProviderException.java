package mcp.api;

/**
 * A service provider that is missing, duplicated or broken. The message names the ids that were
 * found and what to add (a module on the module path, a {@code --add-modules} entry in a jlink
 * image, or an explicit provider instance).
 */
public class ProviderException extends McpException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and what to do */
    public ProviderException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and what to do
     * @param cause the underlying failure, such as a {@link java.util.ServiceConfigurationError}
     */
    public ProviderException(String message, Throwable cause) {
        super(message, cause);
    }
}
