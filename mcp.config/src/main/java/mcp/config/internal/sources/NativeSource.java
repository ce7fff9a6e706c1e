package mcp.config.internal.sources;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import mcp.api.SourceMetadata;
import tools.jackson.databind.JsonNode;

/**
 * mcp-host's own config files ({@code native}, priority 100): {@code mcp.json} in
 * {@code $XDG_CONFIG_HOME/mcp-host/} (when the variable holds an absolute path, as the XDG spec
 * requires; else {@code ~/.config/mcp-host/}), and {@code .mcp-host/mcp.json} in the project. The
 * servers sit under {@code mcpServers} in the common shape, so a Claude Desktop config can be
 * copied in as it is. Its env and header values may use mcp-host's own value syntax (a {@code !command},
 * the name of an environment variable; see {@link mcp.api.ServerConfig#valueReferences()}), and
 * {@code inheritEnv} says which of the host's variables a stdio server gets (default all).
 */
public final class NativeSource extends FileSource {

    /** The one file to read instead of the standard ones, or {@code null}. */
    private final Path explicitFile;

    /** Creates the source; ServiceLoader calls this. */
    public NativeSource() {
        this(null);
    }

    private NativeSource(Path explicitFile) {
        super("native", "mcp-host", 100);
        this.explicitFile = explicitFile;
    }

    /**
     * @param file a config file in the native format
     * @return a source that reads only this file, at level {@link SourceMetadata.Level#NATIVE}; a
     *     missing file is a problem here, since someone named it
     */
    public static NativeSource forFile(Path file) {
        return new NativeSource(file.toAbsolutePath().normalize());
    }

    @Override
    void collect(Context context, SearchPath search, Findings findings) {
        if (explicitFile == null) {
            super.collect(context, search, findings);
        } else if (!Files.exists(explicitFile, LinkOption.NOFOLLOW_LINKS) && !Files.exists(explicitFile)) {
            findings.problem(explicitFile, "", "", "the config file does not exist");
        } else {
            readFile(new ConfigFile(explicitFile, SourceMetadata.Level.NATIVE, search.projectRoot(), format()), search,
                    findings);
        }
    }

    @Override
    List<Path> userFiles(SearchPath search) {
        Map<String, String> environment = search.environment();
        Path configHome = SearchPath.absolutePath(environment.get("XDG_CONFIG_HOME"))
                .orElse(search.home().resolve(".config"));
        return List.of(configHome.resolve("mcp-host").resolve("mcp.json").normalize());
    }

    @Override
    List<String> projectFiles() {
        return List.of(".mcp-host/mcp.json");
    }

    /**
     * The variables {@code "inheritEnv": "minimal"} passes on: a process's own basics, the ones Codex passes
     * to its servers, and their Windows counterparts.
     */
    static final List<String> MINIMAL_ENV = Stream.concat(CodexSource.DEFAULT_ENV_VARS.stream(), Stream.of("SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR",
            "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "SYSTEMDRIVE")).toList();

    @Override
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
        spec.valueReferences = true;
        inheritEnv(entry).ifPresent(names -> spec.inheritedEnv = Optional.of(names));
        // Checked by validation, which names the versions there are.
        spec.protocolVersion = entry.string("protocolVersion");
    }

    /**
     * {@code inheritEnv}: {@code "all"} (the default: the whole environment), {@code "minimal"}
     * ({@link #MINIMAL_ENV}), or an array of names: the minimal set plus those.
     *
     * @return the names a stdio server inherits, or empty for the whole environment
     */
    private static Optional<List<String>> inheritEnv(ServerEntry entry) {
        JsonNode value = entry.value("inheritEnv");
        if (value == null || value.isString() && value.stringValue().equals("all")) {
            return Optional.empty();
        }
        if (value.isString() && value.stringValue().equals("minimal")) {
            return Optional.of(MINIMAL_ENV);
        }
        Optional<List<String>> names = value.isArray() ? entry.stringList("inheritEnv", false) : Optional.empty();
        if (names.isEmpty()) {
            if (!entry.failed()) {
                entry.error(Pointers.child(entry.pointer(), "inheritEnv"), "\"inheritEnv\" must be \"all\", \"minimal\""
                        + " or an array of variable names, got " + ServerEntry.describe(value, Format.JSON));
            }
            return Optional.empty();
        }
        List<String> inherited = new ArrayList<>(MINIMAL_ENV);
        names.get().stream().filter(name -> !inherited.contains(name)).forEach(inherited::add);
        return Optional.of(inherited);
    }
}
