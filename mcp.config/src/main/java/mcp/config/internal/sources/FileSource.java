package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import mcp.api.SourceMetadata;
import mcp.api.SourceMetadata.Level;
import mcp.api.spi.CapabilitySource;
import mcp.config.internal.sources.Variables.InputReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A capability source that reads config files: the loop over files and servers shared by every
 * built-in source. A subclass declares its files, the key that holds its servers, and how its
 * entries differ from the {@link CommonShape}; the order of the files is {@link SearchPath}'s.
 *
 * <p>{@code discover} never throws for bad input: each file and each server entry is read inside
 * its own guard, so one bad file or server never hides another.
 */
abstract class FileSource implements CapabilitySource {

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final String id;
    private final String displayName;
    private final int priority;

    FileSource(String id, String displayName, int priority) {
        this.id = id;
        this.displayName = displayName;
        this.priority = priority;
    }

    @Override
    public final String id() {
        return id;
    }

    @Override
    public final String displayName() {
        return displayName;
    }

    @Override
    public final int priority() {
        return priority;
    }

    @Override
    public final Result discover(Context context) {
        Objects.requireNonNull(context, "context");
        Findings findings = new Findings();
        collect(context, SearchPath.of(context), findings);
        return findings.result();
    }

    /**
     * @param search the home, the project directories and the environment (for {@code XDG_CONFIG_HOME},
     *     {@code CODEX_HOME})
     * @return the user-level files, absolute and normalized, in reading order; default none
     */
    List<Path> userFiles(SearchPath search) {
        return List.of();
    }

    /** @return the project-level files, relative to each searched directory, in reading order; default none */
    List<String> projectFiles() {
        return List.of();
    }

    /**
     * @return the folders whose {@link #projectFiles()} are read, nearest first; default
     *     {@link SearchPath#directories()} (the working directory up to the repository root)
     */
    List<Path> projectDirectories(SearchPath search) {
        return search.directories();
    }

    /** @return the syntax of this source's files; default JSON */
    Format format() {
        return Format.JSON;
    }

    /** @return the top-level key that holds the servers in this file, if any; default {@code mcpServers} */
    Optional<String> container(ObjectNode root) {
        return Optional.of("mcpServers");
    }

    /** @return the variable translation for one server entry of the file; default none */
    Variables variables(ConfigFile file, SearchPath search) {
        return Variables.none();
    }

    /** Reads the fields of one entry into the spec; default the {@link CommonShape}. */
    void readServer(ServerEntry entry, SpecBuilder spec) {
        CommonShape.read(entry, spec);
    }

    /**
     * Reads the fields of one entry for a source that needs the search too (a file of the tool's beside the
     * config, such as the store of a secret the entry names); default {@link #readServer(ServerEntry, SpecBuilder)}.
     */
    void readServer(ServerEntry entry, SpecBuilder spec, SearchPath search) {
        readServer(entry, spec);
    }

    /** Reads every file: project files nearest first, then user files (see {@link SearchPath}). */
    void collect(Context context, SearchPath search, Findings findings) {
        List<Path> user = userFiles(search);
        for (ConfigFile file : projectConfigFiles(search, user)) {
            readFile(file, search, findings);
        }
        for (Path path : user) {
            readFile(userFile(path, search), search, findings);
        }
    }

    final ConfigFile userFile(Path path, SearchPath search) {
        return new ConfigFile(path, Level.USER, search.projectRoot(), format());
    }

    /**
     * @param userFiles files to leave out: when the home is itself a repository (a dotfiles
     *     checkout), {@code ~/.cursor/mcp.json} is both a user and a project file, and is read once,
     *     as the user file it is
     * @return the project-level files, nearest directory first
     */
    final List<ConfigFile> projectConfigFiles(SearchPath search, List<Path> userFiles) {
        List<ConfigFile> files = new ArrayList<>();
        for (Path dir : projectDirectories(search)) {
            for (String name : projectFiles()) {
                Path path = dir.resolve(name).normalize();
                if (!userFiles.contains(path)) {
                    files.add(new ConfigFile(path, Level.PROJECT, dir, format()));
                }
            }
        }
        return files;
    }

    /** Reads one file and its servers under {@link #container}; never throws. */
    final void readFile(ConfigFile file, SearchPath search, Findings findings) {
        readRoot(file, findings).ifPresent(root -> guarded(file, "", findings,
                () -> container(root).ifPresent(key -> readServers(file, root, "", key, search, findings))));
    }

    /** @return the file's top-level object, see {@link ConfigReader#read}; never throws */
    final Optional<ObjectNode> readRoot(ConfigFile file, Findings findings) {
        try {
            return ConfigReader.read(file, findings);
        } catch (RuntimeException | StackOverflowError e) {
            unexpected(file, "", findings, e);
            return Optional.empty();
        }
    }

    /**
     * Reads the servers held in {@code parent[key]}, in file order.
     *
     * @param parentPointer the pointer of {@code parent}, {@code ""} for the top level
     */
    final void readServers(ConfigFile file, ObjectNode parent, String parentPointer, String key,
            SearchPath search, Findings findings) {
        JsonNode servers = parent.get(key);
        String pointer = Pointers.child(parentPointer, key);
        if (servers == null || servers.isNull()) {
            return; // nothing configured in this file
        }
        if (!servers.isObject()) {
            findings.problem(file.path(), pointer, "", ServerEntry.quote(key) + " must be "
                    + file.format().anObject() + ", got " + ServerEntry.describe(servers, file.format()));
            return;
        }
        SourceMetadata source = new SourceMetadata(id, displayName, Optional.of(file.path()), file.level());
        int before = findings.serverCount();
        for (Map.Entry<String, JsonNode> e : servers.properties()) {
            String name = e.getKey();
            guarded(file, name, findings, () -> readServer(file, name, Pointers.child(pointer, name), e.getValue(),
                    source, search, findings, parent, parentPointer));
        }
        log.debug("{}: {} server(s) from {} at {}", id, findings.serverCount() - before, file.path(), pointer);
    }

    private void readServer(ConfigFile file, String name, String pointer, JsonNode value, SourceMetadata source,
            SearchPath search, Findings findings, ObjectNode holder, String holderPointer) {
        if (!value.isObject()) {
            findings.problem(file.path(), pointer, name, "the server entry must be " + file.format().anObject()
                    + ", got " + ServerEntry.describe(value, file.format()));
            return;
        }
        ServerEntry entry = new ServerEntry(file, name, pointer, (ObjectNode) value, variables(file, search),
                search.environment(), holder, holderPointer);
        SpecBuilder spec = new SpecBuilder();
        readServer(entry, spec, search);
        entry.problems().forEach(findings::problem);
        entry.consultedFiles().forEach(findings::consulted);
        if (entry.failed()) {
            return;
        }
        Optional<InputReference> input = entry.variables().firstInput();
        if (input.isPresent()) {
            // Inputs are prompted by the editor and stored in its secret storage: nothing mcp-host can reach.
            findings.problem(file.path(), input.get().pointer(), name, "server \"" + name + "\" uses input \""
                    + input.get().variable() + "\", which mcp-host cannot prompt for; set the value in the file"
                    + " or an environment variable");
            return;
        }
        findings.add(spec.build(name, source, pointer));
        log.debug("{}: server \"{}\" from {}", id, name, file.path());
    }

    /**
     * Runs one step of reading so that a bug or an exotic failure costs only that file or server,
     * never the whole discovery.
     */
    final void guarded(ConfigFile file, String server, Findings findings, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | StackOverflowError e) {
            unexpected(file, server, findings, e);
        }
    }

    private void unexpected(ConfigFile file, String server, Findings findings, Throwable e) {
        // The class and where it was thrown, not the message: a message could quote the file, and the
        // file may hold a secret.
        StackTraceElement[] trace = e.getStackTrace();
        log.debug("{}: unexpected {} reading {} at {}", id, e.getClass().getName(), file.path(),
                trace.length > 0 ? trace[0] : "?");
        findings.problem(file.path(), "", server, "cannot be read: unexpected " + e.getClass().getSimpleName());
    }
}
