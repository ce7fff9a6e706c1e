package mcp.manager;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.api.LoadedSkill;
import mcp.api.LogLevel;
import mcp.api.McpException;
import mcp.api.PromptDefinition;
import mcp.api.PromptResult;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceResult;
import mcp.api.ResourceTemplate;
import mcp.api.ServerConfig;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.TransportClosedException;
import mcp.api.spi.Transport;
import mcp.manager.internal.ClientSession;
import mcp.protocol.ProtocolVersions;
import tools.jackson.databind.JsonNode;

/**
 * One MCP client session with one server, over one transport. Thread-safe: any number of requests
 * may be in flight at once, from any threads.
 *
 * <p>Failures arrive as {@link McpException}s: a JSON-RPC error as
 * {@link mcp.api.McpProtocolException} ({@code MCP error <code>: <message>}), a timeout as
 * {@link mcp.api.McpTimeoutException} ({@code Request timeout after <ms>ms}; for a tool call, a message naming the
 * server, the tool and the bound that ended it: see {@link CallOptions}), a closed transport as
 * {@link TransportClosedException} with the reason (exit code, stderr tail). Cancelling a returned
 * future cancels the request on the server ({@code notifications/cancelled}; {@code tasks/cancel} for a tool call
 * the server runs as a task of the 2026-07-28 tasks extension, which {@link #callTool} polls to its result).
 *
 * <p>Prompts, resources and completions need the server's capability ({@code prompts}, {@code resources},
 * {@code completions}): on a server without it the call fails at once with an {@link McpException} that
 * names the server and the capability, and nothing is sent.
 *
 * <p>Skills (the extension {@code io.modelcontextprotocol/skills}, SEP-2640) need the server to declare it under
 * {@code capabilities.extensions}, or the call fails the same way. {@link #listSkills()} and {@link #getSkill(String)}
 * read entries only, never a skill's files; {@link #loadSkill(SkillEntry)} reads the {@code SKILL.md} and
 * {@link #readSkillFile(LoadedSkill, String)} one file of a loaded skill, each verified against the entry (size,
 * SHA-256 digest, and for {@code SKILL.md} the YAML frontmatter field by field): content that fails is never
 * returned, the failure is an {@link mcp.api.McpVerificationException} naming the server, the URI and what differed.
 */
public interface McpClient extends AutoCloseable {

    /** The protocol version mcp-host offers in the {@code initialize} handshake (the 2025 era). */
    String LATEST_PROTOCOL_VERSION = ProtocolVersions.LATEST_HANDSHAKE;

    /** Every protocol version of the handshake era mcp-host accepts from a server, newest first. */
    List<String> SUPPORTED_PROTOCOL_VERSIONS = ProtocolVersions.HANDSHAKE_VERSIONS;

    /**
     * The stateless revision: no {@code initialize}, no session; every request carries the protocol version,
     * the client's capabilities and identity in {@code _meta}.
     */
    String MODERN_PROTOCOL_VERSION = ProtocolVersions.STATELESS;

    /** Every protocol version mcp-host speaks, newest first: the modern one, then those of the handshake. */
    List<String> ALL_PROTOCOL_VERSIONS = ProtocolVersions.ALL;

    /** {@link ClientOptions#protocolVersion()} that lets mcp-host find the server's era itself. */
    String AUTO = ServerConfig.AUTO_PROTOCOL_VERSION;

    /** mcp-host's version, sent in {@code clientInfo}. */
    String VERSION = "0.1.0";

    /**
     * Starts the transport and finds the server's era ({@link ClientOptions#protocolVersion()}): in
     * {@code auto}, over a transport that carries the stateless revision, it asks {@code server/discover} and
     * falls back to the {@code initialize} handshake (then {@code notifications/initialized}) on any answer but
     * a recognised modern one, a timeout included; a handshake-era verdict remembered from an earlier run
     * ({@link ClientOptions#knownProtocolVersion()}) skips the probe. On failure the transport is closed.
     *
     * @param transport a transport that has not been started
     * @param options the session's settings
     * @return the connected session, or a failure that names the server and the cause: the child's
     *     exit code and stderr when it died, the timeout, or the protocol versions when they differ
     */
    static CompletableFuture<McpClient> connect(Transport transport, ClientOptions options) {
        return ClientSession.connect(transport, options).thenApply(session -> session);
    }

    /** @return what the server said in the handshake */
    InitializeResult initializeResult();

    /** @return the server name from the options */
    String serverName();

    /**
     * Lists every tool, following {@code nextCursor} to the end (at most
     * {@link ClientOptions#maxListPages()} pages; a repeated cursor ends the listing with a warning).
     *
     * @return the tools, in the server's order
     */
    CompletableFuture<List<ToolDefinition>> listTools();

    /**
     * Like {@link #listTools}, with the caching hints the server gave ({@code ttlMs}, {@code cacheScope}
     * of the 2026-07-28 revision; none in the handshake era). The default has none.
     *
     * @return the tools and their hints
     */
    default CompletableFuture<ToolListing> listToolsWithHints() {
        return listTools().thenApply(ToolListing::unhinted);
    }

    /**
     * Calls a tool.
     *
     * @param name the tool's name on the server
     * @param arguments its arguments (an object), or {@code null} for none
     * @param options timeout and progress
     * @return the result; a tool-level failure is a result with {@code isError}, not an exception
     */
    CompletableFuture<ToolResult> callTool(String name, JsonNode arguments, CallOptions options);

    /**
     * Calls a tool with the default options.
     *
     * @param name the tool's name
     * @param arguments its arguments, or {@code null}
     * @return the result
     */
    default CompletableFuture<ToolResult> callTool(String name, JsonNode arguments) {
        return callTool(name, arguments, CallOptions.DEFAULT);
    }

    /**
     * Lists every prompt, following {@code nextCursor} as {@link #listTools()} does (the same page cap and
     * repeated-cursor guard). Needs the {@code prompts} capability.
     *
     * @return the prompts, in the server's order (a name listed twice: the first)
     */
    CompletableFuture<List<PromptDefinition>> listPrompts();

    /**
     * Gets a prompt with its arguments filled in ({@code prompts/get}). Needs the {@code prompts} capability.
     *
     * @param name the prompt's name on the server
     * @param arguments its arguments by name (empty for none)
     * @param options timeout and progress
     * @return the prompt's messages
     */
    CompletableFuture<PromptResult> getPrompt(String name, Map<String, String> arguments, CallOptions options);

    /**
     * {@link #getPrompt(String, Map, CallOptions)} with the default options.
     *
     * @param name the prompt's name
     * @param arguments its arguments by name
     * @return the prompt's messages
     */
    default CompletableFuture<PromptResult> getPrompt(String name, Map<String, String> arguments) {
        return getPrompt(name, arguments, CallOptions.DEFAULT);
    }

    /**
     * Lists every resource, following {@code nextCursor} as {@link #listTools()} does. Needs the
     * {@code resources} capability.
     *
     * @return the resources, in the server's order (a URI listed twice: the first)
     */
    CompletableFuture<List<ResourceDefinition>> listResources();

    /**
     * Lists every resource template, following {@code nextCursor} as {@link #listTools()} does. Needs the
     * {@code resources} capability.
     *
     * @return the templates, in the server's order (a template listed twice: the first)
     */
    CompletableFuture<List<ResourceTemplate>> listResourceTemplates();

    /**
     * Reads a resource ({@code resources/read}), text or binary. A result whose decoded size is over
     * {@link ClientOptions#maxResourceBytes()} fails this read (the session stays up). Needs the
     * {@code resources} capability.
     *
     * @param uri the resource's URI: a listed one, or one made from a template
     * @param options timeout and progress
     * @return the contents
     */
    CompletableFuture<ResourceResult> readResource(String uri, CallOptions options);

    /**
     * {@link #readResource(String, CallOptions)} with the default options.
     *
     * @param uri the resource's URI
     * @return the contents
     */
    default CompletableFuture<ResourceResult> readResource(String uri) {
        return readResource(uri, CallOptions.DEFAULT);
    }

    /**
     * Subscribes to a resource's updates: {@link ClientListener#onResourceUpdated} hears of its changes. Needs the
     * server's {@code resources.subscribe} capability (otherwise fails at once, nothing sent). In the 2025 era it is
     * {@code resources/subscribe}; in the 2026-07-28 era the {@code subscriptions/listen} stream of the session's
     * resources, opened again with the whole new set (the old stream ends once the new one is acknowledged), and it
     * fails when the server's acknowledgement leaves the URI out. Subscribing twice is once. Subscriptions end with
     * the session: after a reconnect, subscribe again ({@link #subscribedResources()}).
     *
     * @param uri the resource's URI
     * @return completes once the server accepted the subscription
     */
    CompletableFuture<Void> subscribeResource(String uri);

    /**
     * Ends a subscription of {@link #subscribeResource}: {@code resources/unsubscribe} in the 2025 era; in the
     * 2026-07-28 era a new stream without the URI (none when no URI is left), after which an update of the old
     * stream is not reported. Needs the {@code resources.subscribe} capability.
     *
     * @param uri the resource's URI
     * @return completes once the server no longer sends its updates
     */
    CompletableFuture<Void> unsubscribeResource(String uri);

    /** @return the URIs this session is subscribed to now (the server accepted them), in no particular order */
    Set<String> subscribedResources();

    /**
     * Asks for values an argument of a prompt or a resource template may take ({@code completion/complete}).
     * Needs the {@code completions} capability.
     *
     * @param ref the prompt or the resource template
     * @param argument the argument's name
     * @param value what has been typed of it so far
     * @param context the values of the other arguments already chosen, by name (empty for none)
     * @return the suggestions
     */
    CompletableFuture<CompletionResult> complete(CompletionReference ref, String argument, String value,
            Map<String, String> context);

    /**
     * Lists every skill the server publishes ({@code skills/list}), following {@code nextCursor} as
     * {@link #listTools()} does (the same page cap and repeated-cursor guard); an entry a host may not load (no
     * frontmatter {@code name} and {@code description}, a name that is not the last segment of its path,
     * {@code resources} neither files nor {@code "dynamic"}) is skipped with a warning. Reads no skill file. Needs
     * the skills extension.
     *
     * @return the entries, in the server's order (a URI listed twice: the first)
     */
    CompletableFuture<List<SkillEntry>> listSkills();

    /**
     * Gets the entry of one skill by the URI of its {@code SKILL.md} ({@code skills/get}): for a skill named in
     * instructions rather than listed, or to refresh a held entry. Reads no skill file. Needs the skills extension.
     *
     * @param uri the URI of the skill's {@code SKILL.md}
     * @return the entry
     */
    CompletableFuture<SkillEntry> getSkill(String uri);

    /**
     * Loads a skill: reads its {@code SKILL.md} and verifies it against the entry (its size and SHA-256 digest,
     * then its YAML frontmatter compared field by field with the entry's). An entry mcp-host does not load fails
     * before anything is read: {@code "dynamic"} (no digests), its {@code SKILL.md} not among its files, a file
     * outside the skill's directory or listed twice, over the extension's limits (512 files, 16 MiB), or a file
     * listed over {@link ClientOptions#maxResourceBytes()}. Needs the skills extension.
     *
     * @param entry the entry, as listed or got from this server (another server's entry is refused: a skill is
     *     the pair of its server and its URI)
     * @return the loaded skill, which holds the entry for reading the skill's other files
     */
    CompletableFuture<LoadedSkill> loadSkill(SkillEntry entry);

    /**
     * {@link #getSkill(String)}, then {@link #loadSkill(SkillEntry)} by the entry got.
     *
     * @param uri the URI of the skill's {@code SKILL.md}
     * @return the loaded skill
     */
    default CompletableFuture<LoadedSkill> loadSkill(String uri) {
        return getSkill(uri).thenCompose(this::loadSkill);
    }

    /**
     * Reads one file of a loaded skill, verified against the entry the skill was loaded by (size and SHA-256
     * digest). A file that entry does not list is not read (a verification failure, as the extension says), nor is
     * a skill of another server read through this one.
     *
     * @param skill a skill loaded from this server
     * @param reference the file: relative to the skill's directory ({@code references/FORMS.md}, as
     *     {@code SKILL.md} refers to it) or its URI
     * @return the verified file
     */
    CompletableFuture<SkillFile> readSkillFile(LoadedSkill skill, String reference);

    /**
     * @return the server's log messages ({@code notifications/message}) as this session kept them: the log of
     *     {@link ClientOptions#serverLog()}, else one of the session's own; cleaned, bounded, secrets masked
     */
    ServerLog serverLog();

    /**
     * Asks the server for log messages of this level and above from now on: {@code logging/setLevel} in the
     * 2025 era to a server that declares the {@code logging} capability, the level in every later request's
     * {@code _meta} in the 2026-07-28 era.
     *
     * @param level the least severe level wanted
     * @return completes when the server took it (at once in the 2026-07-28 era)
     */
    CompletableFuture<Void> setLogLevel(LogLevel level);

    /**
     * Sends any request.
     *
     * @param method the method
     * @param params its params, or {@code null}
     * @param options timeout and progress
     * @return the {@code result} member of the response
     */
    CompletableFuture<JsonNode> request(String method, JsonNode params, CallOptions options);

    /**
     * Sends a notification.
     *
     * @param method the method
     * @param params its params, or {@code null}
     * @return completes when sent
     */
    CompletableFuture<Void> notify(String method, JsonNode params);

    /** @return whether the transport is still open */
    boolean isOpen();

    /** @return why the session closed, once it has */
    Optional<TransportClosedException> closeReason();

    /** @return stdout lines etc. that the transport could explain a failure with */
    String diagnostics();

    /** Closes the session and its transport (bounded); requests in flight fail. Idempotent. */
    @Override
    void close();

    /** @return {@link #listTools()}, waited for */
    default List<ToolDefinition> listToolsBlocking() {
        return await(listTools());
    }

    /** @return {@link #callTool(String, JsonNode)}, waited for */
    default ToolResult callToolBlocking(String name, JsonNode arguments) {
        return await(callTool(name, arguments));
    }

    /**
     * Waits for a future of this API and unwraps its failure. The wait is bounded by the request's
     * own timeout.
     *
     * @param future a future returned by a client
     * @param <T> its value type
     * @return its value
     * @throws McpException the failure, unwrapped
     */
    static <T> T await(CompletableFuture<T> future) {
        try {
            if (!future.isDone()) {
                // Code chained on a response may run on the thread that reads the server's messages:
                // have its transport read on elsewhere first, at once.
                ClientSession.blockingHere();
            }
            return future.get();
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof McpException mcp) {
                throw mcp;
            }
            throw new McpException(String.valueOf(cause.getMessage()), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new McpException("Interrupted while waiting for an MCP response", e);
        }
    }

    /**
     * Connects and waits; see {@link #connect(Transport, ClientOptions)}.
     *
     * @param transport a transport that has not been started
     * @param options the session's settings
     * @return the connected session
     */
    static McpClient connectBlocking(Transport transport, ClientOptions options) {
        return await(connect(transport, options));
    }
}
