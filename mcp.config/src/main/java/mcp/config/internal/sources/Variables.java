package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites a tool's own variable syntax into what mcp-host understands, for one server entry.
 *
 * <p>mcp-host expands {@code ${NAME}} (and {@code ${NAME:-default}}) later, in the core, for every
 * source alike. Editors and some CLIs write other forms; translating them here keeps the core to
 * one syntax and keeps the values otherwise as written. A new instance is used per server entry,
 * because the editor form remembers the first {@code ${input:...}} it met.
 */
abstract class Variables {

    /** Values as written: Claude Code, Codex and mcp-host already use {@code ${NAME}} or nothing. */
    static Variables none() {
        return new Variables() {
            @Override
            String translate(String value, String pointer) {
                return value;
            }
        };
    }

    /**
     * VS Code's variables, which Cursor and Windsurf copy: {@code ${env:NAME}} becomes
     * {@code ${NAME}}; {@code ${workspaceFolder}}, {@code ${workspaceFolderBasename}},
     * {@code ${userHome}}, {@code ${pathSeparator}} and {@code ${/}} are replaced by their values;
     * {@code ${input:id}} is left as written and remembered, since mcp-host cannot prompt for it;
     * anything else ({@code ${config:...}}, {@code ${command:...}}) is left as written.
     *
     * @param workspaceFolder the folder that stands for the workspace
     * @param home the user's home
     */
    static Variables editor(Path workspaceFolder, Path home) {
        return new Editor(workspaceFolder, home, false);
    }

    /**
     * Windsurf's variables: the {@link #editor} forms, plus {@code ${file:/path}}, which Windsurf
     * replaces with the file's content; mcp-host does not read files named in a config, so such a value
     * is left as written and remembered ({@link #firstUnsupported()}).
     */
    static Variables windsurf(Path workspaceFolder, Path home) {
        return new Editor(workspaceFolder, home, true);
    }

    /**
     * opencode's variables, which it substitutes in the config's text before parsing it:
     * {@code {env:NAME}} becomes the variable's value, or the empty string when it is unset, as in
     * opencode; {@code {file:path}} (the file's content) is left as written and remembered
     * ({@link #firstUnsupported()}). Anything else, {@code ${NAME}} and {@code $NAME} included, is literal
     * for opencode, and its source turns mcp-host's own expansion off.
     *
     * @param environment the discovery's environment
     */
    static Variables opencode(Map<String, String> environment) {
        return new OpenCode(environment);
    }

    /**
     * goose's substitution in the {@code uri} and {@code headers} of a remote extension: {@code ${NAME}}
     * (spaces allowed inside the braces) and {@code $NAME} take the value the extension's own
     * environment gives {@code NAME}: a value written in {@code envs} as it is, a name listed in
     * {@code env_keys} its value in the environment. A name in neither stays as written, as in goose.
     *
     * @param envs the extension's {@code envs}
     * @param envKeys the extension's {@code env_keys} that the environment sets, with their values
     */
    static Variables goose(Map<String, String> envs, Map<String, String> envKeys) {
        Map<String, String> known = new HashMap<>(envKeys);
        known.putAll(envs); // goose: a value written in envs wins over env_keys
        return new Variables() {
            @Override
            String translate(String value, String pointer) {
                if (value.indexOf('$') < 0) {
                    return value;
                }
                return replace(GOOSE, value, m -> known.getOrDefault(m.group(1) != null ? m.group(1) : m.group(2),
                        m.group()));
            }
        };
    }

    /**
     * Gemini CLI resolves {@code $NAME} as well as {@code ${NAME}} in its settings files; the bare
     * form becomes {@code ${NAME}} here because mcp-host does not expand bare {@code $NAME}.
     */
    static Variables gemini() {
        return new Variables() {
            @Override
            String translate(String value, String pointer) {
                if (value.indexOf('$') < 0) {
                    return value;
                }
                return replace(GEMINI, value, m -> m.group(1) == null ? m.group() : "${" + m.group(1) + "}");
            }
        };
    }

    /**
     * A Gemini CLI extension's file: {@code ${extensionPath}}, {@code ${workspacePath}}, {@code ${/}} and
     * {@code ${pathSeparator}} are replaced by their values first, then the rest as {@link #gemini()}.
     *
     * @param extensionPath the extension's folder
     * @param workspacePath the working directory
     */
    static Variables geminiExtension(Path extensionPath, Path workspacePath) {
        Variables gemini = gemini();
        return new Variables() {
            @Override
            String translate(String value, String pointer) {
                String separator = extensionPath.getFileSystem().getSeparator();
                return gemini.translate(value.replace("${extensionPath}", extensionPath.toString())
                        .replace("${workspacePath}", workspacePath.toString())
                        .replace("${/}", separator).replace("${pathSeparator}", separator), pointer);
            }
        };
    }

    /** {@code ${...}} as written (left alone), or a bare {@code $NAME} (group 1). */
    private static final Pattern GEMINI = Pattern.compile("\\$\\{[^}]*}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    private static final Pattern EDITOR = Pattern.compile("\\$\\{([^}]*)}");

    /** goose: {@code ${ NAME }} (group 1) or {@code $NAME} (group 2). */
    private static final Pattern GOOSE =
            Pattern.compile("\\$\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}|\\$([A-Za-z_][A-Za-z0-9_]*)");

    /** opencode: {@code {env:NAME}} (group 1) or {@code {file:path}} (group 2). */
    private static final Pattern OPENCODE = Pattern.compile("\\{env:([^}]*)}|\\{file:([^}]*)}");

    /** @return {@code value} with each match of {@code pattern} replaced by what {@code replacement} gives */
    private static String replace(Pattern pattern, String value, Function<MatchResult, String> replacement) {
        return pattern.matcher(value).replaceAll(m -> Matcher.quoteReplacement(replacement.apply(m)));
    }

    /**
     * @param value a string value of the entry
     * @param pointer where the value is, for {@link #firstInput()}
     * @return the value in mcp-host's syntax
     */
    abstract String translate(String value, String pointer);

    /** @return the first {@code ${input:...}} met, if any */
    Optional<InputReference> firstInput() {
        return Optional.empty();
    }

    /**
     * @return the first reference met that the tool resolves and mcp-host cannot (a file to read:
     *     Windsurf's {@code ${file:...}}, opencode's {@code {file:...}}), if any; the source skips such
     *     a server, since a file name in place of its content would start it wrongly
     */
    Optional<InputReference> firstUnsupported() {
        return Optional.empty();
    }

    /**
     * A reference a value needs that mcp-host cannot resolve: an editor input, a file to read.
     *
     * @param variable the variable as written, e.g. {@code ${input:api-key}}, {@code {file:~/key}}
     * @param pointer the value's JSON pointer
     */
    record InputReference(String variable, String pointer) {
    }

    private static final class Editor extends Variables {
        private final Path workspaceFolder;
        private final Path home;
        /** Whether {@code ${file:...}} is a reference (Windsurf) rather than text left alone (VS Code). */
        private final boolean fileReferences;
        private InputReference firstInput;
        private InputReference firstFile;

        Editor(Path workspaceFolder, Path home, boolean fileReferences) {
            this.workspaceFolder = workspaceFolder;
            this.home = home;
            this.fileReferences = fileReferences;
        }

        @Override
        String translate(String value, String pointer) {
            if (!value.contains("${")) {
                return value;
            }
            return replace(EDITOR, value, m -> replacement(m.group(), m.group(1), pointer));
        }

        private String replacement(String written, String name, String pointer) {
            switch (name) {
                case "workspaceFolder":
                    return workspaceFolder.toString();
                case "workspaceFolderBasename":
                    return workspaceFolder.getFileName() == null ? "" : workspaceFolder.getFileName().toString();
                case "userHome":
                    return home.toString();
                case "pathSeparator":
                case "/":
                    return home.getFileSystem().getSeparator();
                default:
                    break;
            }
            if (name.startsWith("env:")) {
                return "${" + name.substring("env:".length()) + "}";
            }
            if (name.startsWith("input:") && firstInput == null) {
                firstInput = new InputReference(written, pointer);
            }
            if (fileReferences && name.startsWith("file:") && firstFile == null) {
                firstFile = new InputReference(written, pointer);
            }
            return written;
        }

        @Override
        Optional<InputReference> firstInput() {
            return Optional.ofNullable(firstInput);
        }

        @Override
        Optional<InputReference> firstUnsupported() {
            return Optional.ofNullable(firstFile);
        }
    }

    private static final class OpenCode extends Variables {
        private final Map<String, String> environment;
        private InputReference firstFile;

        OpenCode(Map<String, String> environment) {
            this.environment = environment;
        }

        @Override
        String translate(String value, String pointer) {
            if (value.indexOf('{') < 0) {
                return value;
            }
            return replace(OPENCODE, value, m -> {
                if (m.group(1) != null) {
                    return environment.getOrDefault(m.group(1), "");
                }
                if (firstFile == null) {
                    firstFile = new InputReference(m.group(), pointer);
                }
                return m.group();
            });
        }

        @Override
        Optional<InputReference> firstUnsupported() {
            return Optional.ofNullable(firstFile);
        }
    }
}
