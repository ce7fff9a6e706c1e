package mcp.cli.internal.conformance;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.HttpServerConfig;
import mcp.api.LoadedSkill;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.ServerConfig;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.spi.AuthServices;
import mcp.api.spi.AuthStorage;
import mcp.api.spi.AuthorizationUi;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.ElicitationHandlers;
import mcp.manager.McpClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The conformance suite's client: {@code ConformanceClient <server url>}, with the scenario in
 * {@code MCP_CONFORMANCE_SCENARIO} and, from the suite of the 2026-07-28 revision on, the revision it is judged
 * by in {@code MCP_CONFORMANCE_PROTOCOL_VERSION} (spoken as pinned). The suite runs it as {@code <command> <url>} and judges what the
 * server saw, so the client does what a host does with any server: connect over Streamable HTTP
 * (initialize, initialized), list the tools, call each one with arguments made from its input
 * schema, and close (DELETE). It declares the {@code elicitation} capability and answers with the
 * requested schema's defaults (SEP-1034). A server of the skills extension has its skills listed, loaded and
 * their files read, each verified ({@link #skills}).
 *
 * <p>Authorization scenarios: the transport's own OAuth client does the work, with an in-memory
 * credential store and the {@code headless} authorization UI (the suite's authorization servers
 * redirect at once). What the suite passes in {@code MCP_CONFORMANCE_CONTEXT} becomes the server's
 * {@code auth} options, as a user would write them in a config ({@link #authOptions}).
 *
 * <p>Exit code 0 when everything worked, 1 when something failed (the reason on stderr), 2 on a usage
 * error. Every wait is bounded ({@link #TIMEOUT}), well inside the suite's own 30 s.
 */
public final class ConformanceClient {

    /** The bound of the connect and of every request. */
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private ConformanceClient() {
    }

    /**
     * Runs one scenario and exits.
     *
     * @param args the server URL, last
     */
    public static void main(String[] args) {
        System.setProperty("tinylog.writer", "console");
        System.setProperty("tinylog.writer.stream", "err");
        System.setProperty("tinylog.writer.level", System.getenv().containsKey("MCP_CONFORMANCE_DEBUG") ? "debug" : "info");
        System.setProperty("tinylog.writer.format", "{date:HH:mm:ss.SSS} {level} [{thread}] {message}");
        PrintStream err = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true,
                StandardCharsets.UTF_8);
        int code = run(args, System.getenv(), err);
        err.flush();
        System.exit(code);
    }

    /**
     * @param args the command line; the server URL is the last argument
     * @param env the environment ({@code MCP_CONFORMANCE_SCENARIO})
     * @param err where the progress and the failure go
     * @return the exit code
     */
    static int run(String[] args, Map<String, String> env, PrintStream err) {
        if (args.length == 0) {
            err.println("usage: conformance-client <server url>   (scenario in MCP_CONFORMANCE_SCENARIO)");
            return 2;
        }
        String url = args[args.length - 1];
        String scenario = env.getOrDefault("MCP_CONFORMANCE_SCENARIO", "(none)");
        err.println("conformance client: scenario " + scenario + ", server " + url);
        try {
            TransportProvider http = Providers.require(TransportProvider.class,
                    Providers.byId(TransportProvider.class, Providers.load(TransportProvider.class,
                            ConformanceClient.class.getClassLoader()), TransportProvider::id), "http");
            Map<String, String> authOptions = authOptions(scenario, env.get("MCP_CONFORMANCE_CONTEXT"));
            HttpServerConfig config = new HttpServerConfig(url, Map.of(), TIMEOUT, true,
                    Optional.of(new ServerConfig.AuthRef("oauth", "conformance", authOptions)), Optional.empty(), List.of());
            AuthorizationUi ui = Providers.require(AuthorizationUi.class, Providers.byId(AuthorizationUi.class,
                    Providers.load(AuthorizationUi.class, ConformanceClient.class.getClassLoader()), AuthorizationUi::id),
                    "headless");
            AuthServices auth = new AuthServices(AuthStorage.inMemory(), Optional.of(ui));
            // The suite says which revision a scenario is judged by; a version mcp-host does not know: find it.
            String version = env.getOrDefault("MCP_CONFORMANCE_PROTOCOL_VERSION", McpClient.AUTO);
            ClientOptions options = ClientOptions.builder("conformance")
                    .protocolVersion(McpClient.ALL_PROTOCOL_VERSIONS.contains(version) ? version : McpClient.AUTO)
                    .initializeTimeout(TIMEOUT)
                    .requestTimeout(TIMEOUT)
                    .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults())
                    .build();
            try (McpClient client = McpClient.connectBlocking(
                    http.open(TransportRequest.of("conformance", config, Path.of("").toAbsolutePath()).withAuth(auth)),
                    options)) {
                err.println("conformance client: connected to " + client.initializeResult().serverName() + " (protocol "
                        + client.initializeResult().protocolVersion() + ")");
                List<ToolDefinition> tools = client.listToolsBlocking();
                err.println("conformance client: " + tools.size() + " tools");
                // A scenario may say which calls to make, with which arguments (http-custom-headers).
                Map<String, JsonNode> given = givenCalls(env.get("MCP_CONFORMANCE_CONTEXT"));
                // json-schema-2020-12-preservation: the echo tool gets another tool's inputSchema as it was listed,
                // which shows that the listing kept every keyword.
                tools.stream().filter(t -> !t.name().equals(SCHEMA_ECHO_TOOL)).findFirst().ifPresent(other -> {
                    if (tools.stream().anyMatch(t -> t.name().equals(SCHEMA_ECHO_TOOL)) && given.isEmpty()) {
                        ObjectNode echo = McpJson.object();
                        echo.set("schema", other.inputSchema());
                        given.put(SCHEMA_ECHO_TOOL, echo);
                        tools.stream().filter(t -> !t.name().equals(SCHEMA_ECHO_TOOL))
                                .forEach(t -> given.put(t.name(), arguments(t.inputSchema())));
                    }
                });
                for (ToolDefinition tool : tools) {
                    if (!given.isEmpty() && !given.containsKey(tool.name())) {
                        continue;
                    }
                    try {
                        ToolResult result = client.callToolBlocking(tool.name(),
                                given.getOrDefault(tool.name(), arguments(tool.inputSchema())));
                        err.println("conformance client: " + tool.name() + " -> " + (result.isError() ? "error " : "ok ")
                                + result.content().size() + " content items");
                    } catch (McpProtocolException e) {
                        // The server's answer, judged by the suite: a host reports it and goes on with the others.
                        err.println("conformance client: " + tool.name() + " -> " + e.getMessage());
                    }
                }
                skills(client, scenario, err);
            }
            return 0;
        } catch (McpException e) {
            err.println("conformance client: " + e.getMessage());
            return 1;
        }
    }

    /** Scenarios in which the model asks for no skill: the host lists them and reads none of their files. */
    static final Set<String> SKILLS_LISTED_ONLY = Set.of("sep-2640-client-no-prefetch");

    /**
     * The skills extension, as a host uses it: the skills are listed (no file is read on listing); then, as a model
     * that asks for a skill would have it, each is loaded (its SKILL.md read and verified) and its other files read,
     * each verified. The suite gives no task, so the scenario stands for the model: in
     * {@link #SKILLS_LISTED_ONLY} it asks for none. A skill that fails verification is reported and not used, and the
     * host goes on, as with a tool's error.
     */
    static void skills(McpClient client, String scenario, PrintStream err) {
        if (!client.initializeResult().capabilities().path("extensions").has("io.modelcontextprotocol/skills")) {
            return;
        }
        List<SkillEntry> skills = McpClient.await(client.listSkills());
        err.println("conformance client: " + skills.size() + " skills");
        if (SKILLS_LISTED_ONLY.contains(scenario)) {
            return;
        }
        for (SkillEntry entry : skills) {
            try {
                LoadedSkill skill = McpClient.await(client.loadSkill(entry));
                err.println("conformance client: skill " + entry.uri() + " loaded");
                for (String file : skill.files()) {
                    SkillFile read = McpClient.await(client.readSkillFile(skill, file));
                    err.println("conformance client: skill file " + read.uri() + " read, " + read.listed().size()
                            + " bytes verified");
                }
            } catch (McpException e) {
                err.println("conformance client: skill " + entry.uri() + " not used: " + e.getMessage());
            }
        }
    }

    /** The tool of the suite's json-schema-2020-12-preservation scenario that echoes a schema back. */
    static final String SCHEMA_ECHO_TOOL = "json_schema_echo";

    /** The URL of the client metadata document the suite's authorization servers expect (SEP-991). */
    static final String CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

    /**
     * The {@code auth} options for a scenario: what the suite's context gives, in the config's terms.
     * A pre-registered client ({@code client_id}, {@code client_secret}) uses the authorization code
     * grant, unless the scenario is about the client credentials grant (then a {@code private_key_pem}
     * means {@code private_key_jwt}); an IdP ID token means cross-app access; a workload JWT ({@code valid_jwt})
     * means workload identity federation with that token as the assertion.
     *
     * @param scenario the scenario's name
     * @param contextJson {@code MCP_CONFORMANCE_CONTEXT}, or null
     * @return the options
     */
    static Map<String, String> authOptions(String scenario, String contextJson) {
        Map<String, String> options = new java.util.LinkedHashMap<>();
        options.put("clientMetadataUrl", CLIENT_METADATA_URL);
        if (contextJson == null || contextJson.isBlank()) {
            return options;
        }
        JsonNode context = McpJson.mapper().readTree(contextJson);
        copy(context, "client_id", options, "clientId");
        copy(context, "client_secret", options, "clientSecret");
        if (context.hasNonNull("idp_id_token")) {
            options.put("grant", "cross_app_access");
            copy(context, "idp_id_token", options, "idToken");
            copy(context, "idp_client_id", options, "idpClientId");
            copy(context, "idp_token_endpoint", options, "idpTokenEndpoint");
        } else if (context.hasNonNull("valid_jwt")) {
            // Workload identity federation: the workload's JWT, as the platform would hand it over.
            options.put("grant", "workload_identity");
            copy(context, "valid_jwt", options, "assertion");
        } else if (scenario.startsWith("auth/client-credentials")) {
            options.put("grant", "client_credentials");
            copy(context, "private_key_pem", options, "privateKey");
            copy(context, "signing_algorithm", options, "signingAlgorithm");
        }
        return options;
    }

    /** @return the calls {@code MCP_CONFORMANCE_CONTEXT.toolCalls} names, tool name to arguments; empty when none */
    static Map<String, JsonNode> givenCalls(String contextJson) {
        Map<String, JsonNode> calls = new java.util.LinkedHashMap<>();
        if (contextJson == null || contextJson.isBlank()) {
            return calls;
        }
        for (JsonNode call : McpJson.mapper().readTree(contextJson).path("toolCalls")) {
            if (call.path("name").isString()) {
                calls.put(call.get("name").asString(), call.path("arguments").isObject() ? call.get("arguments")
                        : McpJson.object());
            }
        }
        return calls;
    }

    private static void copy(JsonNode context, String from, Map<String, String> options, String to) {
        JsonNode value = context.get(from);
        if (value != null && value.isString()) {
            options.put(to, value.stringValue());
        }
    }

    /**
     * Arguments for a tool from its input schema: every property gets a plain value of its type
     * (numbers 1, 2, ...; strings "test"; booleans true; the first enum member or the default when given).
     */
    static ObjectNode arguments(JsonNode schema) {
        ObjectNode arguments = McpJson.object();
        JsonNode properties = schema == null ? null : schema.get("properties");
        if (properties == null || !properties.isObject()) {
            return arguments;
        }
        int number = 1;
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            JsonNode spec = property.getValue();
            String name = property.getKey();
            if (spec.has("default")) {
                arguments.set(name, spec.get("default").deepCopy());
            } else if (spec.path("enum").isArray() && !spec.path("enum").isEmpty()) {
                arguments.set(name, spec.path("enum").get(0).deepCopy());
            } else {
                switch (spec.path("type").asString("string")) {
                    case "number", "integer" -> arguments.put(name, number++);
                    case "boolean" -> arguments.put(name, true);
                    case "array" -> arguments.putArray(name);
                    case "object" -> arguments.putObject(name);
                    default -> arguments.put(name, "test");
                }
            }
        }
        return arguments;
    }
}
