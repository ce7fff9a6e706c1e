/**
 * The service interfaces of mcp-host. Each is found with {@link java.util.ServiceLoader}: a plugin
 * module declares {@code provides mcp.api.spi.X with com.example.MyX;} in its
 * {@code module-info.java} (and a {@code META-INF/services/mcp.api.spi.X} file for class-path
 * users). Every provider has a stable {@code id()}; two providers with one id are an error unless
 * the embedder chooses one explicitly.
 *
 * <ul>
 *   <li>{@link mcp.api.spi.CapabilitySource}: reads server configs from one place;</li>
 *   <li>{@link mcp.api.spi.ConfigFilter}: drops or rewrites discovered configs;</li>
 *   <li>{@link mcp.api.spi.TransportProvider} and {@link mcp.api.spi.Transport}: move JSON-RPC
 *       messages to and from a server;</li>
 *   <li>{@link mcp.api.spi.AuthResolver}: turns secret references into concrete values just before
 *       connect;</li>
 *   <li>{@link mcp.api.spi.ToolCacheProvider} and {@link mcp.api.spi.ToolCache}: remember a server's
 *       tools between runs;</li>
 *   <li>{@link mcp.api.spi.AuthStorage}: keeps OAuth credentials between runs;</li>
 *   <li>{@link mcp.api.spi.AuthorizationUi}: lets the user authorize a client in the browser.</li>
 * </ul>
 *
 * <p>{@link mcp.api.spi.ConsentHandler} is not looked up: an embedder passes its own to the host's
 * builder, so that its user, in its own UI, decides whether a project's server may start.
 *
 * <p>{@link mcp.api.spi.AuthServices} bundles the last two for a transport that obtains credentials
 * itself ({@link mcp.api.spi.TransportRequest#auth()}).
 *
 * <p>Providers must be thread-safe: the host calls them from several threads at once.
 */
package mcp.api.spi;
