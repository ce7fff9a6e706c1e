package mcp.config.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mcp.api.Sandbox;
import mcp.api.ServerSpec;

/**
 * {@code ${VAR}} and {@code ${VAR:-default}} expansion in the fields of a server entry that hold
 * commands, paths, addresses and values: {@code command}, {@code args}, {@code env} values,
 * {@code cwd}, {@code url}, {@code headers} values and the paths of a {@code sandbox} (never in names or keys).
 *
 * <p>An entry whose tool passes values as written ({@link ServerSpec#expandVariables()} false) is left
 * alone.
 *
 * <p>Rules (SPEC §3):
 * <ul>
 *   <li>a variable whose value is empty counts as set, so {@code ${VAR:-d}} with {@code VAR=""} is
 *       {@code ""} (the shell's {@code ${VAR-d}}, spelled the way config files usually spell it);</li>
 *   <li>an unset {@code ${VAR}} without a default stays as written and is reported;</li>
 *   <li>bare {@code $VAR} is not expanded: {@code $} is common in arguments (regexes, prices, shell
 *       snippets handed to a tool) and expanding it would change them silently;</li>
 *   <li>a name is {@code [A-Za-z_][A-Za-z0-9_]*}; anything else inside {@code ${...}}, such as VS
 *       Code's {@code ${input:token}} or {@code ${workspaceFolder}}-like forms with other characters,
 *       stays as written without a warning, since it belongs to another tool;</li>
 *   <li>a {@code ${} without its {@code }} stays as written; the default runs up to the first
 *       {@code }} and is taken literally (no nested expansion);</li>
 *   <li>one pass: an expanded value is never expanded again, so a variable cannot inject another
 *       reference.</li>
 * </ul>
 */
public final class Expansion {

    private static final Pattern REFERENCE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", Pattern.DOTALL);

    private Expansion() {
    }

    /**
     * An unset variable, and where it was referenced.
     *
     * @param variable the variable's name
     * @param field where: {@code command}, {@code args[2]}, {@code env.TOKEN}, {@code cwd}, {@code url},
     *     {@code headers.Authorization}
     */
    public record Unset(String variable, String field) {
        /** Validates. */
        public Unset {
            Objects.requireNonNull(variable, "variable");
            Objects.requireNonNull(field, "field");
        }

        /**
         * @param server the server's name
         * @return the warning for people, e.g. {@code Server "x": environment variable "TOKEN" is not set (in "url")}
         */
        public String message(String server) {
            return "Server \"" + server + "\": environment variable \"" + variable + "\" is not set (in \"" + field
                    + "\")";
        }
    }

    /**
     * @param spec the entry with every reference expanded that could be
     * @param unset the unset variables, once per variable and field, in field order
     */
    public record Expanded(ServerSpec spec, List<Unset> unset) {
        /** Copies. */
        public Expanded {
            Objects.requireNonNull(spec, "spec");
            unset = List.copyOf(unset);
        }
    }

    /**
     * Expands every reference in one entry.
     *
     * @param spec the entry as a source returned it
     * @param environment the variables
     * @return the expanded entry and what was not set
     */
    public static Expanded expand(ServerSpec spec, Map<String, String> environment) {
        if (!spec.expandVariables()) {
            return new Expanded(spec, List.of()); // the owning tool passes its values as written
        }
        Set<Unset> unset = new LinkedHashSet<>();
        Optional<String> command = spec.command().map(v -> expand(v, environment, name -> unset.add(new Unset(name, "command"))));
        List<String> args = new ArrayList<>(spec.args().size());
        for (int i = 0; i < spec.args().size(); i++) {
            String field = "args[" + i + "]";
            args.add(expand(spec.args().get(i), environment, name -> unset.add(new Unset(name, field))));
        }
        Map<String, String> env = expandValues(spec.env(), "env.", environment, unset);
        Optional<String> cwd = spec.cwd().map(v -> expand(v, environment, name -> unset.add(new Unset(name, "cwd"))));
        Optional<String> url = spec.url().map(v -> expand(v, environment, name -> unset.add(new Unset(name, "url"))));
        Map<String, String> headers = expandValues(spec.headers(), "headers.", environment, unset);
        Optional<Sandbox> sandbox = spec.sandbox().map(rules -> new Sandbox(new Sandbox.Filesystem(
                expandList(rules.filesystem().allowWrite(), "sandbox.filesystem.allowWrite", environment, unset),
                expandList(rules.filesystem().denyRead(), "sandbox.filesystem.denyRead", environment, unset),
                expandList(rules.filesystem().denyWrite(), "sandbox.filesystem.denyWrite", environment, unset)),
                rules.network(), rules.bubblewrap()));
        ServerSpec expanded = new ServerSpec(spec.name(), spec.source(), spec.location(), spec.type(), command, args,
                env, cwd, url, headers, spec.timeoutMillis(), spec.enabled(), spec.auth(), spec.enabledTools(),
                spec.disabledTools(), spec.toolTimeoutMillis(), spec.inheritedEnv(), spec.expandVariables(), spec.owner(),
                spec.valueReferences(), spec.protocolVersion(), spec.reconnect(), spec.callLimits(), spec.alwaysLoad(),
                sandbox, spec.headersHelper(), spec.toolPolicy(), spec.lazy());
        return new Expanded(expanded, new ArrayList<>(unset));
    }

    private static List<String> expandList(List<String> values, String field, Map<String, String> environment,
            Set<Unset> unset) {
        List<String> result = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            String at = field + "[" + i + "]";
            result.add(expand(values.get(i), environment, name -> unset.add(new Unset(name, at))));
        }
        return result;
    }

    private static Map<String, String> expandValues(Map<String, String> values, String fieldPrefix,
            Map<String, String> environment, Set<Unset> unset) {
        // Sorted by key, so that the order of the warnings does not depend on the map's hashing.
        Map<String, String> result = new LinkedHashMap<>();
        values.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> result.put(e.getKey(),
                expand(e.getValue(), environment, name -> unset.add(new Unset(name, fieldPrefix + e.getKey())))));
        return result;
    }

    /**
     * Expands the references in one value.
     *
     * @param text the value
     * @param environment the variables
     * @param onUnset told the name of every unset variable referenced without a default
     * @return the value with every resolvable reference replaced
     */
    public static String expand(String text, Map<String, String> environment, Consumer<String> onUnset) {
        int start = text.indexOf("${");
        if (start < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        while (start >= 0) {
            int end = text.indexOf('}', start + 2);
            if (end < 0) {
                break; // "${" without "}": the rest stays as written
            }
            Matcher m = REFERENCE.matcher(text.substring(start + 2, end));
            if (!m.matches()) {
                // Not ours (${input:x}) or not a reference ("${abc ${HOME}"): keep this "${" and look on
                // from just after it, so a real reference inside is still found.
                start = text.indexOf("${", start + 2);
                continue;
            }
            String value = environment.get(m.group(1));
            if (value == null) {
                value = m.group(2); // the default, when there is one
            }
            if (value == null) {
                onUnset.accept(m.group(1));
                value = text.substring(start, end + 1);
            }
            out.append(text, copied, start).append(value);
            copied = end + 1;
            start = text.indexOf("${", copied);
        }
        return out.append(text, copied, text.length()).toString();
    }
}
