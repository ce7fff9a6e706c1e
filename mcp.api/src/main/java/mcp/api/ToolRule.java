package mcp.api;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * One per-tool decision of the tool that owns a server's config, as that tool's file writes it: a Claude Code
 * {@code permissions.deny} rule, a Codex {@code disabled_tools} list or {@code approval_mode}, a Gemini CLI
 * {@code excludeTools} list or {@code trust}. A capability source reads them with the server (they go to
 * {@link ServerConfig#toolPolicy()}); the manager applies them to the tools the server lists.
 *
 * @param decision what the rule decides for the tools it matches
 * @param match which of the server's tools it concerns
 * @param owner the tool that owns the config, for people ({@code Claude Code})
 * @param rule the rule as its file writes it, for people ({@code permissions.deny "mcp__github__delete_repo"})
 * @param file the file the rule is in, when it is in one
 */
public record ToolRule(CallPolicy.Decision decision, Match match, String owner, String rule, Optional<Path> file) {

    /** Validates. */
    public ToolRule {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(file, "file");
    }

    /**
     * @param tool a tool of the rule's server
     * @return whether the rule concerns it
     */
    public boolean matches(ToolDefinition tool) {
        return match.matches(tool);
    }

    /** @return for people: {@code Claude Code: permissions.deny "mcp__x__y" in /path/settings.json} */
    public String describe() {
        return owner + ": " + rule + file.map(path -> " in " + path).orElse("");
    }

    /**
     * Which of a server's tools a rule concerns. Value types (equal when they match the same way), so that two
     * reads of an unchanged config give equal {@link ServerConfig}s.
     */
    public sealed interface Match permits Match.AnyTool, Match.Named, Match.AllBut, Match.Glob, Match.ReadOnly,
            Match.Both {

        /**
         * @param tool a tool of the server
         * @return whether this matches it
         */
        boolean matches(ToolDefinition tool);

        /** Every tool of the server (Claude Code's {@code mcp__github}, Gemini CLI's {@code trust}). */
        record AnyTool() implements Match {
            @Override
            public boolean matches(ToolDefinition tool) {
                return true;
            }
        }

        /**
         * The tools of these names on the server, exactly (Codex's {@code disabled_tools}).
         *
         * @param names tool names as the server lists them
         */
        record Named(Set<String> names) implements Match {
            /** Copies, in name order. */
            public Named {
                names = Set.copyOf(names);
            }

            @Override
            public boolean matches(ToolDefinition tool) {
                return names.contains(tool.name());
            }

            @Override
            public String toString() {
                return "Named" + new TreeSet<>(names);
            }
        }

        /**
         * Every tool but those of these names (what an allow-list such as Codex's {@code enabled_tools} leaves
         * out).
         *
         * @param names tool names as the server lists them
         */
        record AllBut(Set<String> names) implements Match {
            /** Copies. */
            public AllBut {
                names = Set.copyOf(names);
            }

            @Override
            public boolean matches(ToolDefinition tool) {
                return !names.contains(tool.name());
            }

            @Override
            public String toString() {
                return "AllBut" + new TreeSet<>(names);
            }
        }

        /**
         * A pattern over the name the owning tool gives the tool, as Claude Code names MCP tools: {@code prefix}
         * followed by the tool's name with every character but ASCII letters, digits, {@code _} and {@code -}
         * replaced by {@code _}; in the pattern {@code *} stands for any characters (none included), everything
         * else for itself.
         *
         * @param prefix what comes before the tool's name ({@code mcp__github__}: Claude Code's server name,
         *     normalized the same way)
         * @param glob the pattern, over the whole name ({@code mcp__github__delete_*})
         */
        record Glob(String prefix, String glob) implements Match {
            /** Validates. */
            public Glob {
                Objects.requireNonNull(prefix, "prefix");
                Objects.requireNonNull(glob, "glob");
            }

            /** The characters Claude Code keeps in a server's or tool's name; others become {@code _}. */
            private static final Pattern REPLACED = Pattern.compile("[^a-zA-Z0-9_-]");

            /**
             * @param name a server's or tool's name
             * @return it as Claude Code writes it in a tool's name
             */
            public static String normalize(String name) {
                return REPLACED.matcher(name).replaceAll("_");
            }

            @Override
            public boolean matches(ToolDefinition tool) {
                return matches(glob, prefix + normalize(tool.name()));
            }

            /** {@code *} against any run of characters; iterative, so no pattern is exponential. */
            static boolean matches(String glob, String text) {
                int g = 0;
                int t = 0;
                int star = -1;
                int resume = 0;
                while (t < text.length()) {
                    if (g < glob.length() && glob.charAt(g) == '*') {
                        star = g++;
                        resume = t;
                    } else if (g < glob.length() && glob.charAt(g) == text.charAt(t)) {
                        g++;
                        t++;
                    } else if (star >= 0) {
                        g = star + 1;
                        t = ++resume;
                    } else {
                        return false;
                    }
                }
                while (g < glob.length() && glob.charAt(g) == '*') {
                    g++;
                }
                return g == glob.length();
            }
        }

        /**
         * The tools whose {@code annotations.readOnlyHint} is {@code true} ({@code readOnly}), or every other
         * ({@code !readOnly}): Codex's {@code approval_mode = "writes"} asks before the others only.
         *
         * @param readOnly which of the two
         */
        record ReadOnly(boolean readOnly) implements Match {
            @Override
            public boolean matches(ToolDefinition tool) {
                boolean hint = tool.annotations().map(a -> a.path("readOnlyHint")).filter(JsonNode::isBoolean)
                        .map(JsonNode::asBoolean).orElse(false);
                return hint == readOnly;
            }
        }

        /**
         * The tools both match.
         *
         * @param first one match
         * @param second the other
         */
        record Both(Match first, Match second) implements Match {
            /** Validates. */
            public Both {
                Objects.requireNonNull(first, "first");
                Objects.requireNonNull(second, "second");
            }

            @Override
            public boolean matches(ToolDefinition tool) {
                return first.matches(tool) && second.matches(tool);
            }
        }
    }
}
