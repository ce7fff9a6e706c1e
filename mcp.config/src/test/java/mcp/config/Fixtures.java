package mcp.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.CapabilitySource;
import mcp.api.spi.ConfigFilter;
import mcp.config.internal.EnabledFilter;
import mcp.config.internal.ExaFilter;
import mcp.config.internal.ProjectFilter;

/** Small capability sources and entries for discovery tests, so they never depend on real files or built-ins. */
final class Fixtures {

    private Fixtures() {
    }

    /** @return metadata of a source with a file of its own */
    static SourceMetadata meta(String id, SourceMetadata.Level level) {
        return new SourceMetadata(id, "Source " + id, Optional.of(Path.of("/cfg/" + id + "/mcp.json")), level);
    }

    /** @return a builder of one entry */
    static Spec spec(String name, SourceMetadata source) {
        return new Spec(name, source);
    }

    /** @return a stdio entry */
    static ServerSpec stdio(String name, SourceMetadata source, String command) {
        return spec(name, source).command(command).build();
    }

    /** @return an http entry */
    static ServerSpec http(String name, SourceMetadata source, String url) {
        return spec(name, source).url(url).build();
    }

    /** @return the built-in filters as instances */
    static List<ConfigFilter> builtInFilters() {
        return List.of(new EnabledFilter(), new ProjectFilter(), new ExaFilter());
    }

    /**
     * @return a discovery over exactly these sources and the built-in filters, with neither found by
     *     ServiceLoader, a fixed working directory and home, and an empty environment; project servers start
     *     without approval (these tests are about merging: {@code ProjectApprovalTest} is about approval)
     */
    static Discovery.Builder discovery(CapabilitySource... sources) {
        return Discovery.builder()
                .approveProjectServers(true)
                .workingDirectory(Path.of("/work/project"))
                .home(Path.of("/home/tester"))
                .environment(Map.of())
                .loadSources(false)
                .sources(List.of(sources))
                .loadFilters(false)
                .filters(builtInFilters());
    }

    /** A fluent builder of a {@link ServerSpec}; every field starts absent or empty. */
    static final class Spec {
        private final String name;
        private final SourceMetadata source;
        private String location;
        private Optional<String> type = Optional.empty();
        private Optional<String> command = Optional.empty();
        private List<String> args = new ArrayList<>();
        private Map<String, String> env = new LinkedHashMap<>();
        private Optional<String> cwd = Optional.empty();
        private Optional<String> url = Optional.empty();
        private Map<String, String> headers = new LinkedHashMap<>();
        private Optional<Long> timeout = Optional.empty();
        private Optional<Boolean> enabled = Optional.empty();

        Spec(String name, SourceMetadata source) {
            this.name = name;
            this.source = source;
            this.location = "/mcpServers/" + name;
        }

        Spec type(String t) {
            type = Optional.of(t);
            return this;
        }

        Spec command(String c) {
            command = Optional.of(c);
            return this;
        }

        Spec args(String... a) {
            args = List.of(a);
            return this;
        }

        Spec env(String k, String v) {
            env.put(k, v);
            return this;
        }

        Spec cwd(String c) {
            cwd = Optional.of(c);
            return this;
        }

        Spec url(String u) {
            url = Optional.of(u);
            return this;
        }

        Spec header(String k, String v) {
            headers.put(k, v);
            return this;
        }

        Spec timeout(long millis) {
            timeout = Optional.of(millis);
            return this;
        }

        Spec enabled(boolean e) {
            enabled = Optional.of(e);
            return this;
        }

        Spec location(String l) {
            location = l;
            return this;
        }

        ServerSpec build() {
            // Value references on, as in mcp-host's own files: the configs the tests expect are made by
            // StdioServerConfig.of and HttpServerConfig.of, which allow them.
            return ServerSpec.builder(name, source).location(location).type(type).command(command).args(args)
                    .env(env).cwd(cwd).url(url).headers(headers).timeoutMillis(timeout).enabled(enabled)
                    .valueReferences(true).build();
        }
    }

    /** A source that returns fixed entries (tagged with its own metadata by the test) and problems. */
    static final class FixedSource implements CapabilitySource {
        private final String id;
        private final int priority;
        private final Function<Context, Result> body;

        FixedSource(String id, int priority, List<ServerSpec> servers) {
            this(id, priority, context -> new Result(servers, List.of()));
        }

        FixedSource(String id, int priority, Function<Context, Result> body) {
            this.id = id;
            this.priority = priority;
            this.body = body;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String displayName() {
            return "Source " + id;
        }

        @Override
        public int priority() {
            return priority;
        }

        @Override
        public Result discover(Context context) {
            return body.apply(context);
        }

        @Override
        public String toString() {
            return id + "@" + priority;
        }
    }

    /** A filter with a given id and behaviour. */
    static final class LambdaFilter implements ConfigFilter {
        private final String id;
        private final java.util.function.BiFunction<mcp.api.ServerSpec, Context, Decision> body;

        LambdaFilter(String id, java.util.function.BiFunction<mcp.api.ServerSpec, Context, Decision> body) {
            this.id = id;
            this.body = body;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public Decision apply(ServerSpec server, Context context) {
            return body.apply(server, context);
        }
    }
}
