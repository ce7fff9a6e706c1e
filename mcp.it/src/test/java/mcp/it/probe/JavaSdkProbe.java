package mcp.it.probe;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.modern.McpException;
import io.modelcontextprotocol.modern.client.transport.HttpClientMcpTransport;
import io.modelcontextprotocol.modern.client.transport.McpHttpRequestCustomizer;
import io.modelcontextprotocol.modern.client.transport.StdioMcpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real MCP client for the interoperability tests: the official Java SDK's client ({@code io.modelcontextprotocol.sdk:mcp}
 * 2.2.0, a test dependency of {@code mcp.it}), used as its API is meant to be used, in a process of its own on the class
 * path (the SDK has no module descriptor of mcp-host's kind, and a process of its own gives it the same contract as
 * the other SDKs' probes).
 *
 * <pre>
 * java -cp TEST_CLASS_PATH mcp.it.probe.JavaSdkProbe [--era 2026|2025] [--timeout SECONDS] [--script JSON|@FILE]
 *      (--url URL [--header 'Name: value']... | --stdio CMD ARG...)
 * </pre>
 *
 * <p>The SDK has two clients and no negotiation between them, so the era picks one: {@code 2026} (the default) is the
 * client of the stateless revision ({@code io.modelcontextprotocol.modern.client}), which sends
 * {@code server/discover} first and then its one version, 2026-07-28, in every request's envelope; {@code 2025} is the
 * classic client ({@code io.modelcontextprotocol.client}) and its {@code initialize} handshake. Script, report, exit
 * code and time bound are those of the other probes ({@code interop/typescript/probe-common.mjs}): a JSON array of
 * {@code {"op": "tools"}}, {@code {"op": "call", "name", "arguments"}}, {@code {"op": "read", "uri"}} and
 * {@code {"op": "prompt", "name", "arguments"}}; one JSON document on stdout; exit 0 only when the connection and every
 * operation succeeded.
 */
public final class JavaSdkProbe {

    private static final String NAME = "java-sdk";
    private static final String SDK = "io.modelcontextprotocol.sdk:mcp 2.2.0";
    private static final String USAGE = "usage: JavaSdkProbe [--era 2026|2025] [--timeout SECONDS] [--script JSON|@FILE]"
            + " (--url URL [--header 'Name: value']... | --stdio CMD ARG...)";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private JavaSdkProbe() {
    }

    /** The command line, parsed. */
    record Options(String era, double timeoutSeconds, List<Map<String, Object>> script, String url,
            Map<String, String> headers, List<String> stdio) {
    }

    /** One SDK client, of either era, as the script uses it. */
    interface Session extends AutoCloseable {
        String protocolVersion();

        Map<String, Object> serverInfo();

        List<String> tools();

        /** Fills isError, text and structuredContent of the entry. */
        void call(String name, Map<String, Object> arguments, Map<String, Object> entry);

        List<String> resources();

        List<Map<String, Object>> read(String uri);

        List<String> prompts();

        List<Map<String, Object>> prompt(String name, Map<String, String> arguments);

        @Override
        void close();
    }

    /** The real stdout, for the report alone: whatever else prints there (a logging backend) goes to stderr. */
    private static final PrintStream REPORT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out),
            true, StandardCharsets.UTF_8);

    public static void main(String[] args) {
        System.setOut(System.err);
        Options options = parse(args);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("probe", NAME);
        report.put("sdk", SDK);
        report.put("era", options.era());
        report.put("target", options.url() != null ? options.url() : String.join(" ", options.stdio()));
        report.put("protocolVersion", null);
        report.put("serverInfo", null);
        report.put("ok", false);
        report.put("error", null);
        List<Map<String, Object>> operations = new ArrayList<>();
        report.put("operations", operations);
        AtomicBoolean printed = new AtomicBoolean();
        // The SDK's threads (Reactor, its stdio readers) are not all daemons: the bound ends the JVM itself, which
        // closes a stdio server's stdin.
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep((long) (options.timeoutSeconds() * 1000));
            } catch (InterruptedException done) {
                return;
            }
            synchronized (report) {
                report.put("ok", false);
                if (report.get("error") == null) {
                    report.put("error", Map.of("message", "timeout: the probe did not finish within "
                            + java.math.BigDecimal.valueOf(options.timeoutSeconds()).stripTrailingZeros().toPlainString()
                            + " s"));
                }
                System.err.println(NAME + ": timeout");
                emit(report, printed);
            }
            Runtime.getRuntime().halt(1);
        }, "java-sdk-probe-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        boolean allOk = false;
        try (Session session = connect(options)) {
            synchronized (report) {
                report.put("protocolVersion", session.protocolVersion());
                report.put("serverInfo", session.serverInfo());
            }
            allOk = true;
            for (Map<String, Object> step : options.script()) {
                Map<String, Object> entry = new LinkedHashMap<>(step);
                entry.put("ok", false);
                synchronized (report) {
                    operations.add(entry);
                }
                try {
                    run(session, step, entry);
                } catch (RuntimeException e) {
                    System.err.println(NAME + ": " + step.get("op") + " failed:");
                    e.printStackTrace(System.err);
                    entry.put("error", errorData(e));
                }
                allOk &= Boolean.TRUE.equals(entry.get("ok"));
            }
        } catch (RuntimeException e) {
            System.err.println(NAME + ": failed:");
            e.printStackTrace(System.err);
            allOk = false;
            synchronized (report) {
                report.put("error", errorData(e));
            }
        }
        watchdog.interrupt();
        synchronized (report) {
            report.put("ok", allOk);
            emit(report, printed);
        }
        // Leftover SDK threads must not keep the probe alive.
        System.exit(allOk ? 0 : 1);
    }

    private static void emit(Map<String, Object> report, AtomicBoolean printed) {
        if (printed.compareAndSet(false, true)) {
            REPORT.println(JSON.writeValueAsString(report));
            REPORT.flush();
        }
    }

    private static void run(Session session, Map<String, Object> step, Map<String, Object> entry) {
        Object op = step.get("op");
        if ("tools".equals(op)) {
            entry.put("tools", session.tools());
            entry.put("ok", true);
        } else if ("call".equals(op)) {
            session.call((String) step.get("name"), arguments(step), entry);
            entry.put("ok", !Boolean.TRUE.equals(entry.get("isError")));
        } else if ("read".equals(op)) {
            String uri = (String) step.get("uri");
            List<String> resources = session.resources();
            entry.put("resources", resources);
            entry.put("listed", resources.contains(uri));
            entry.put("contents", session.read(uri));
            entry.put("ok", true);
        } else if ("prompt".equals(op)) {
            String name = (String) step.get("name");
            List<String> prompts = session.prompts();
            entry.put("prompts", prompts);
            entry.put("listed", prompts.contains(name));
            Map<String, String> arguments = new LinkedHashMap<>();
            arguments(step).forEach((k, v) -> arguments.put(k, String.valueOf(v)));
            entry.put("messages", session.prompt(name, arguments));
            entry.put("ok", true);
        } else {
            entry.put("error", Map.of("message", "unknown operation " + JSON.writeValueAsString(op)));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> arguments(Map<String, Object> step) {
        Object arguments = step.get("arguments");
        return arguments instanceof Map ? (Map<String, Object>) arguments : Map.of();
    }

    /** An error as data: its message, and its JSON-RPC code where the SDK gives one. */
    private static Map<String, Object> errorData(Throwable error) {
        Map<String, Object> data = new LinkedHashMap<>();
        Throwable cause = error;
        while (cause.getCause() != null && !(cause instanceof McpError) && !(cause instanceof McpException)) {
            cause = cause.getCause();
        }
        data.put("message", String.valueOf(cause.getMessage() != null ? cause.getMessage() : cause));
        if (cause instanceof McpError e && e.getJsonRpcError() != null) {
            data.put("code", e.getJsonRpcError().code());
        } else if (cause instanceof McpException e && e.error() != null) {
            data.put("code", e.error().code());
        }
        return data;
    }

    private static Session connect(Options options) {
        return options.era().equals("2025") ? Classic.connect(options) : Modern.connect(options);
    }

    /** Every page of a list: page(cursor) gives the items and the next cursor (null on the last page). */
    private static <T> List<T> allPages(Function<String, Map.Entry<List<T>, String>> page) {
        List<T> items = new ArrayList<>();
        String cursor = null;
        for (int i = 0; i < 100; i++) {
            Map.Entry<List<T>, String> result = page.apply(cursor);
            items.addAll(result.getKey());
            cursor = result.getValue();
            if (cursor == null) {
                return items;
            }
        }
        throw new IllegalStateException("more than 100 pages");
    }

    private static Map.Entry<List<String>, String> page(List<String> items, String nextCursor) {
        return new java.util.AbstractMap.SimpleImmutableEntry<>(items, nextCursor);
    }

    private static Map<String, Object> content(String uri, String mimeType, String text, String blob) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("uri", uri);
        item.put("mimeType", mimeType);
        if (text != null) {
            item.put("text", text);
        } else {
            item.put("blobLength", blob == null ? 0 : blob.length());
        }
        return item;
    }

    private static Map<String, Object> message(String role, String type, String text) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("role", role);
        if (text != null) {
            item.put("text", text);
        } else {
            item.put("type", type);
        }
        return item;
    }

    /** The classic client of the 2025 handshake, over the SDK's stdio or Streamable HTTP transport. */
    private static final class Classic implements Session {
        private final McpSyncClient client;
        private final McpSchema.InitializeResult initialized;

        private Classic(McpSyncClient client) {
            this.client = client;
            this.initialized = client.initialize();
        }

        static Classic connect(Options options) {
            io.modelcontextprotocol.spec.McpClientTransport transport;
            if (options.url() != null) {
                URI uri = URI.create(options.url());
                String base = uri.getScheme() + "://" + uri.getRawAuthority();
                String endpoint = uri.getRawPath() + (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "");
                transport = HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint)
                        .connectTimeout(REQUEST_TIMEOUT)
                        .httpRequestCustomizer((builder, method, target, body, context) ->
                                options.headers().forEach(builder::header))
                        .build();
            } else {
                StdioClientTransport stdio = new StdioClientTransport(ServerParameters.builder(options.stdio().get(0))
                        .args(options.stdio().subList(1, options.stdio().size())).build(), McpJsonDefaults.getMapper());
                stdio.setStdErrorHandler(System.err::println);
                transport = stdio;
            }
            return new Classic(McpClient.sync(transport)
                    .clientInfo(new McpSchema.Implementation("mcp-host-probe-java", "1.0.0"))
                    .requestTimeout(REQUEST_TIMEOUT)
                    .initializationTimeout(REQUEST_TIMEOUT)
                    .build());
        }

        @Override
        public String protocolVersion() {
            return initialized.protocolVersion();
        }

        @Override
        public Map<String, Object> serverInfo() {
            McpSchema.Implementation info = initialized.serverInfo();
            if (info == null) {
                return null;
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("name", info.name());
            result.put("version", info.version());
            return result;
        }

        @Override
        public List<String> tools() {
            return allPages(cursor -> {
                McpSchema.ListToolsResult r = client.listTools(cursor);
                return page(r.tools().stream().map(McpSchema.Tool::name).toList(), r.nextCursor());
            });
        }

        @Override
        public void call(String name, Map<String, Object> arguments, Map<String, Object> entry) {
            McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest(name, arguments));
            entry.put("isError", Boolean.TRUE.equals(result.isError()));
            entry.put("text", result.content().stream().filter(McpSchema.TextContent.class::isInstance)
                    .map(c -> ((McpSchema.TextContent) c).text()).toList());
            if (result.structuredContent() != null) {
                entry.put("structuredContent", result.structuredContent());
            }
        }

        @Override
        public List<String> resources() {
            return allPages(cursor -> {
                McpSchema.ListResourcesResult r = client.listResources(cursor);
                return page(r.resources().stream().map(McpSchema.Resource::uri).toList(), r.nextCursor());
            });
        }

        @Override
        public List<Map<String, Object>> read(String uri) {
            List<Map<String, Object>> contents = new ArrayList<>();
            for (McpSchema.ResourceContents c : client.readResource(new McpSchema.ReadResourceRequest(uri)).contents()) {
                if (c instanceof McpSchema.TextResourceContents text) {
                    contents.add(content(text.uri(), text.mimeType(), text.text(), null));
                } else if (c instanceof McpSchema.BlobResourceContents blob) {
                    contents.add(content(blob.uri(), blob.mimeType(), null, blob.blob()));
                }
            }
            return contents;
        }

        @Override
        public List<String> prompts() {
            return allPages(cursor -> {
                McpSchema.ListPromptsResult r = client.listPrompts(cursor);
                return page(r.prompts().stream().map(McpSchema.Prompt::name).toList(), r.nextCursor());
            });
        }

        @Override
        public List<Map<String, Object>> prompt(String name, Map<String, String> arguments) {
            McpSchema.GetPromptResult result = client.getPrompt(new McpSchema.GetPromptRequest(name,
                    new LinkedHashMap<>(arguments)));
            return result.messages().stream().map(m -> message(m.role().name().toLowerCase(Locale.ROOT),
                    m.content().type(), m.content() instanceof McpSchema.TextContent t ? t.text() : null)).toList();
        }

        @Override
        public void close() {
            client.closeGracefully();
        }
    }

    /** The client of the stateless 2026-07-28 revision, over the SDK's stdio or HTTP transport. */
    private static final class Modern implements Session {
        private final io.modelcontextprotocol.modern.client.McpSyncClient client;
        private final AutoCloseable transport;
        private final io.modelcontextprotocol.modern.McpSchema.DiscoverResult discovered;

        private Modern(io.modelcontextprotocol.modern.client.McpSyncClient client, AutoCloseable transport) {
            this.client = client;
            this.transport = transport;
            this.discovered = client.discover();
        }

        static Modern connect(Options options) {
            io.modelcontextprotocol.modern.client.transport.McpClientTransport transport;
            AutoCloseable closer = null;
            if (options.url() != null) {
                transport = HttpClientMcpTransport.builder(options.url()).connectTimeout(REQUEST_TIMEOUT)
                        .requestCustomizer(McpHttpRequestCustomizer.fromSync((request, headers, context) ->
                                options.headers().forEach(headers::set)))
                        .build();
            } else {
                StdioMcpClientTransport stdio = StdioMcpClientTransport.builder(ServerParameters
                        .builder(options.stdio().get(0)).args(options.stdio().subList(1, options.stdio().size())).build())
                        .jsonMapper(McpJsonDefaults.getMapper()).stderrConsumer(System.err::println).start();
                transport = stdio;
                closer = stdio;
            }
            try {
                return new Modern(io.modelcontextprotocol.modern.client.McpClient.sync(transport)
                        .clientInfo(io.modelcontextprotocol.modern.McpSchema.Implementation
                                .builder("mcp-host-probe-java", "1.0.0").build())
                        .callTimeout(REQUEST_TIMEOUT)
                        .build(), closer);
            } catch (RuntimeException e) {
                if (closer != null) {
                    try {
                        closer.close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }

        /**
         * This client sends one version, the SDK's latest, in every request's envelope; it is the version spoken when
         * the server's {@code server/discover} lists it (otherwise none: the SDK has no other to offer).
         */
        @Override
        public String protocolVersion() {
            String version = io.modelcontextprotocol.modern.McpSchema.LATEST_PROTOCOL_VERSION;
            return discovered.supportedVersions() != null && discovered.supportedVersions().contains(version)
                    ? version : null;
        }

        /** From the discover result's {@code _meta}, where a 2026 server may name itself. */
        @Override
        public Map<String, Object> serverInfo() {
            Map<String, Object> meta = discovered.meta();
            Object info = meta == null ? null : meta.get("io.modelcontextprotocol/serverInfo");
            if (info instanceof Map<?, ?> map) {
                Map<String, Object> result = new LinkedHashMap<>();
                result.put("name", map.get("name"));
                result.put("version", map.get("version"));
                return result;
            }
            return null;
        }

        @Override
        public List<String> tools() {
            // The SDK walks every page itself; skipCache: from the server, never the client's tool catalog.
            return client.listTools().skipCache().list().tools().stream()
                    .map(io.modelcontextprotocol.modern.McpSchema.Tool::name).toList();
        }

        @Override
        public void call(String name, Map<String, Object> arguments, Map<String, Object> entry) {
            io.modelcontextprotocol.modern.McpSchema.CallToolResult result = client.tool(name).arguments(arguments)
                    .call();
            entry.put("isError", Boolean.TRUE.equals(result.isError()));
            entry.put("text", result.content().stream()
                    .filter(io.modelcontextprotocol.modern.McpSchema.TextContent.class::isInstance)
                    .map(c -> ((io.modelcontextprotocol.modern.McpSchema.TextContent) c).text()).toList());
            if (result.structuredContent() != null) {
                entry.put("structuredContent", result.structuredContent());
            }
        }

        @Override
        public List<String> resources() {
            return allPages(cursor -> {
                io.modelcontextprotocol.modern.McpSchema.ListResourcesResult r = client.resources().cursor(cursor).list();
                return page(r.resources().stream().map(io.modelcontextprotocol.modern.McpSchema.Resource::uri).toList(),
                        r.nextCursor());
            });
        }

        @Override
        public List<Map<String, Object>> read(String uri) {
            List<Map<String, Object>> contents = new ArrayList<>();
            for (io.modelcontextprotocol.modern.McpSchema.ResourceContents c : client.resource(uri).read().contents()) {
                if (c instanceof io.modelcontextprotocol.modern.McpSchema.TextResourceContents text) {
                    contents.add(content(text.uri(), text.mimeType(), text.text(), null));
                } else if (c instanceof io.modelcontextprotocol.modern.McpSchema.BlobResourceContents blob) {
                    contents.add(content(blob.uri(), blob.mimeType(), null, blob.blob()));
                }
            }
            return contents;
        }

        @Override
        public List<String> prompts() {
            return allPages(cursor -> {
                io.modelcontextprotocol.modern.McpSchema.ListPromptsResult r = client.prompts().cursor(cursor).list();
                return page(r.prompts().stream().map(io.modelcontextprotocol.modern.McpSchema.Prompt::name).toList(),
                        r.nextCursor());
            });
        }

        @Override
        public List<Map<String, Object>> prompt(String name, Map<String, String> arguments) {
            return client.prompt(name).arguments(arguments).get().messages().stream()
                    .map(m -> message(m.role().name().toLowerCase(Locale.ROOT), m.content().type(),
                            m.content() instanceof io.modelcontextprotocol.modern.McpSchema.TextContent t ? t.text() : null))
                    .toList();
        }

        @Override
        public void close() {
            if (transport != null) {
                try {
                    transport.close();
                } catch (Exception e) {
                    System.err.println(NAME + ": close failed: " + e);
                }
            }
        }
    }

    // ---- the command line ----

    private static Options parse(String[] args) {
        String era = "2026";
        double timeout = 30;
        List<Map<String, Object>> script = List.of(Map.of("op", "tools"));
        String url = null;
        Map<String, String> headers = new LinkedHashMap<>();
        List<String> stdio = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--stdio")) {
                stdio = List.of(args).subList(i + 1, args.length);
                if (stdio.isEmpty()) {
                    usage("--stdio needs a command");
                }
                break;
            }
            if (!List.of("--era", "--timeout", "--script", "--url", "--header").contains(arg)) {
                usage("unknown argument " + arg);
            }
            if (i + 1 >= args.length) {
                usage(arg + " needs a value");
            }
            String value = args[++i];
            switch (arg) {
                case "--era" -> {
                    if (!value.equals("2026") && !value.equals("2025")) {
                        usage("this SDK offers the eras 2026, 2025, not " + value);
                    }
                    era = value;
                }
                case "--timeout" -> {
                    try {
                        timeout = Double.parseDouble(value);
                    } catch (NumberFormatException e) {
                        usage("--timeout needs a number of seconds");
                    }
                    if (!(timeout > 0)) {
                        usage("--timeout needs a positive number of seconds");
                    }
                }
                case "--script" -> {
                    try {
                        String text = value.startsWith("@") ? Files.readString(Path.of(value.substring(1))) : value;
                        script = JSON.readValue(text, new TypeReference<List<Map<String, Object>>>() { });
                    } catch (IOException | RuntimeException e) {
                        usage("--script must be a JSON array of operations: " + e.getMessage());
                    }
                }
                case "--url" -> url = value;
                default -> {
                    int colon = value.indexOf(':');
                    if (colon <= 0) {
                        usage("--header needs 'Name: value', not " + value);
                    }
                    headers.put(value.substring(0, colon).trim(), value.substring(colon + 1).trim());
                }
            }
        }
        if ((url == null) == (stdio == null)) {
            usage("give exactly one of --url and --stdio");
        }
        if (stdio != null && !headers.isEmpty()) {
            usage("--header goes with --url");
        }
        return new Options(era, timeout, script, url, Map.copyOf(headers), stdio);
    }

    private static void usage(String message) {
        System.err.println(NAME + ": " + message + "\n" + USAGE);
        System.exit(2);
    }
}
