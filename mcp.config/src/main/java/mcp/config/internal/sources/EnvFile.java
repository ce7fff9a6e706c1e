package mcp.config.internal.sources;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.ConsultedFile;

/**
 * An editor's {@code envFile} (VS Code, Cursor): a dotenv file whose variables a stdio server gets,
 * under those of {@code env}. Lines {@code NAME=value}, optionally after {@code export}; blank lines and
 * lines starting with {@code #} are skipped; a value in single quotes is literal, one in double quotes
 * knows {@code \n}, {@code \"} and {@code \\}; an unquoted value ends before {@code " #"}. Values are not
 * expanded, as the editors do not expand them.
 */
final class EnvFile {

    /** The most an env file may hold: it is read whole, and it is not a data file. */
    static final long MAX_BYTES = 1 << 20;

    private static final Pattern LINE = Pattern.compile("\\s*(?:export\\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\\s*=\\s*(.*)");

    private EnvFile() {
    }

    /**
     * Reads the entry's {@code envFile}, if any, relative to the workspace folder; its variables go under
     * those of {@code env}. One that cannot be read is a problem that skips the server.
     */
    static void apply(ServerEntry entry, SpecBuilder spec) {
        entry.string("envFile").flatMap(path -> read(entry, path, entry.file().directory())).ifPresent(fromFile -> {
            Map<String, String> env = new LinkedHashMap<>(fromFile);
            env.putAll(spec.env);
            spec.env.clear();
            spec.env.putAll(env);
        });
    }

    /**
     * @param entry the server entry, for the problems
     * @param written the {@code envFile} value as translated (variables replaced)
     * @param directory what a relative path is resolved against (the workspace folder)
     * @return the variables, or empty when the file cannot be read (a problem that skips the server)
     */
    static Optional<Map<String, String>> read(ServerEntry entry, String written, Path directory) {
        Path file = directory.resolve(written).normalize();
        // Noted whatever happens: creating or fixing the file changes what the server gets.
        ConsultedFile.State state = ConsultedFile.State.UNREADABLE;
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
                if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                    state = ConsultedFile.State.MISSING;
                }
                entry.error(Pointers.child(entry.pointer(), "envFile"), "\"envFile\" " + file + " is not a file");
                return Optional.empty();
            }
            if (Files.size(file) > MAX_BYTES) {
                entry.error(Pointers.child(entry.pointer(), "envFile"), "\"envFile\" " + file + " is larger than "
                        + MAX_BYTES + " bytes");
                return Optional.empty();
            }
            Map<String, String> env = parse(Files.readString(file, StandardCharsets.UTF_8));
            state = ConsultedFile.State.READ;
            return Optional.of(env);
        } catch (IOException | RuntimeException e) {
            entry.error(Pointers.child(entry.pointer(), "envFile"), "\"envFile\" " + file + " cannot be read: "
                    + e.getClass().getSimpleName());
            return Optional.empty();
        } finally {
            entry.consulted(new ConsultedFile(file, state));
        }
    }

    static Map<String, String> parse(String text) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : text.split("\r?\n")) {
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                env.put(m.group(1), value(m.group(2)));
            }
        }
        return env;
    }

    private static String value(String raw) {
        String v = raw.strip();
        if (v.length() >= 2 && v.startsWith("'") && v.endsWith("'")) {
            return v.substring(1, v.length() - 1);
        }
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            StringBuilder out = new StringBuilder();
            String inner = v.substring(1, v.length() - 1);
            for (int i = 0; i < inner.length(); i++) {
                char c = inner.charAt(i);
                if (c == '\\' && i + 1 < inner.length()) {
                    char next = inner.charAt(++i);
                    out.append(next == 'n' ? '\n' : next);
                } else {
                    out.append(c);
                }
            }
            return out.toString();
        }
        int comment = v.indexOf(" #");
        return comment < 0 ? v : v.substring(0, comment).strip();
    }
}
