package mcp.config.internal.sources;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import mcp.api.UserDirectories;
import mcp.api.spi.CapabilitySource.Context;

/**
 * Where the sources look for project-level files, shared by every source so that they all agree.
 *
 * <p>The project directories are the working directory and each of its parents up to the
 * repository root: the nearest ancestor, inclusive, that holds a {@code .git} directory or file (a
 * file for worktrees and submodules). When there is no repository root, only the working
 * directory is searched: walking up to {@code /} would pick up files that belong to no project
 * (a stray {@code ~/mcp.json}, another checkout's {@code .mcp.json}).
 *
 * <p><b>Order.</b> A source returns its project-level entries first, nearest directory first (and,
 * within one directory, in the order the source lists its file names), then its user-level entries.
 * Project config usually overrides user config within one tool, and discovery later de-duplicates
 * by name with "first wins", so this order makes the most specific entry win.
 */
final class SearchPath {

    private final Path workingDirectory;
    private final Path home;
    private final Optional<Path> repositoryRoot;
    private final List<Path> directories;
    private final Map<String, String> environment;

    private SearchPath(Path workingDirectory, Path home, Optional<Path> repositoryRoot, List<Path> directories,
            Map<String, String> environment) {
        this.workingDirectory = workingDirectory;
        this.home = home;
        this.repositoryRoot = repositoryRoot;
        this.directories = List.copyOf(directories);
        this.environment = environment;
    }

    /**
     * @param context the working directory and home to search from
     * @return the search path of that context
     */
    static SearchPath of(Context context) {
        Path workingDirectory = context.workingDirectory().toAbsolutePath().normalize();
        Path home = context.home().toAbsolutePath().normalize();
        Optional<Path> root = repositoryRoot(workingDirectory);
        List<Path> directories = new ArrayList<>();
        if (root.isEmpty()) {
            directories.add(workingDirectory);
        } else {
            for (Path dir = workingDirectory; dir != null; dir = dir.getParent()) {
                directories.add(dir);
                if (dir.equals(root.get())) {
                    break;
                }
            }
        }
        return new SearchPath(workingDirectory, home, root, directories, context.environment());
    }

    private static Optional<Path> repositoryRoot(Path workingDirectory) {
        for (Path dir = workingDirectory; dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(".git"))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    /**
     * @param value a directory named by an environment variable ({@code XDG_CONFIG_HOME},
     *     {@code CODEX_HOME}), possibly absent
     * @return it when it is a non-empty absolute path; a relative value is ignored, as the XDG spec
     *     says, since it would depend on the directory the process happens to run in
     */
    static Optional<Path> absolutePath(String value) {
        return UserDirectories.absolute(value);
    }

    /**
     * Tools keep per-folder state under the folder's absolute path ({@code projects} of
     * {@code ~/.claude.json} and of Codex's {@code config.toml}); such keys are compared as paths (a
     * trailing '/', '..'), and a relative key names no folder.
     *
     * @return the member of {@code object} that the first key naming {@code dir} holds, with that key as
     *     written, when it is an object
     */
    static Optional<Map.Entry<String, ObjectNode>> folderEntry(JsonNode object, Path dir) {
        if (object == null || !object.isObject()) {
            return Optional.empty();
        }
        for (String key : object.propertyNames()) {
            if (absolutePath(key).filter(dir::equals).isPresent()) {
                JsonNode entry = object.get(key);
                return entry.isObject() ? Optional.of(Map.entry(key, (ObjectNode) entry)) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** @return the absolute, normalized working directory */
    Path workingDirectory() {
        return workingDirectory;
    }

    /** @return the absolute, normalized home directory */
    Path home() {
        return home;
    }

    /** @return the repository root, if the working directory is inside a repository */
    Optional<Path> repositoryRoot() {
        return repositoryRoot;
    }

    /**
     * @return the directory that stands for "the project" where a user-level file needs one (an
     *     editor's {@code ${workspaceFolder}}): the repository root, else the working directory
     */
    Path projectRoot() {
        return repositoryRoot.orElse(workingDirectory);
    }

    /** @return the environment variables of the discovery, for tools that read them themselves (Codex) */
    Map<String, String> environment() {
        return environment;
    }

    /**
     * @return the working directory and every parent of it up to the file system's root, nearest first:
     *     where Claude Code looks for {@code .mcp.json}, repository or not
     */
    List<Path> ancestors() {
        List<Path> all = new ArrayList<>();
        for (Path dir = workingDirectory; dir != null; dir = dir.getParent()) {
            all.add(dir);
        }
        return all;
    }

    /** @return the directories to search for project-level files, nearest first */
    List<Path> directories() {
        return directories;
    }
}
