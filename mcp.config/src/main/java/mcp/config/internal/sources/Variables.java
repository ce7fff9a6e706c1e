package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.Optional;
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
        return new Editor(workspaceFolder, home);
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
                Matcher m = GEMINI.matcher(value);
                StringBuilder out = new StringBuilder();
                while (m.find()) {
                    String bare = m.group(1);
                    m.appendReplacement(out, Matcher.quoteReplacement(bare == null ? m.group() : "${" + bare + "}"));
                }
                m.appendTail(out);
                return out.toString();
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
     * An editor input a value needs.
     *
     * @param variable the variable as written, e.g. {@code ${input:api-key}}
     * @param pointer the value's JSON pointer
     */
    record InputReference(String variable, String pointer) {
    }

    private static final class Editor extends Variables {
        private final Path workspaceFolder;
        private final Path home;
        private InputReference firstInput;

        Editor(Path workspaceFolder, Path home) {
            this.workspaceFolder = workspaceFolder;
            this.home = home;
        }

        @Override
        String translate(String value, String pointer) {
            if (!value.contains("${")) {
                return value;
            }
            Matcher m = EDITOR.matcher(value);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(out, Matcher.quoteReplacement(replacement(m.group(), m.group(1), pointer)));
            }
            m.appendTail(out);
            return out.toString();
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
            return written;
        }

        @Override
        Optional<InputReference> firstInput() {
            return Optional.ofNullable(firstInput);
        }
    }
}
