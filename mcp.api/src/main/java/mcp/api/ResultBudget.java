package mcp.api;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How much one tool call may hand the agent (issue 19, see {@code docs/context-budget.md}): a text result over
 * {@link #maxChars()} characters or {@link #maxTokens()} estimated tokens is saved to an owner-only file of the
 * session and the agent gets a preview within the cap, the file's path and a note; over {@link #warnTokens()} the
 * result passes whole after a one-line note, and a warning is logged. Images and audio are never text: they pass as
 * content items. Each bound absent leaves the next layer's: the tool's entry in {@link #tools()}, then the tool's
 * {@code _meta["anthropic/maxResultSizeChars"]}
 * (characters only), then the server's bound, then the host's builder, then the defaults
 * ({@link #DEFAULT_MAX_CHARS}, {@link #DEFAULT_MAX_TOKENS}, {@link #DEFAULT_WARN_TOKENS}).
 *
 * @param maxChars the most characters of text the agent gets from one call
 * @param maxTokens the most estimated tokens ({@code o200k_base}) of text the agent gets from one call
 * @param warnTokens above this many estimated tokens a result is noted and logged as large
 * @param tools bounds of single tools by their name on the server (their own {@code tools} are empty)
 */
public record ResultBudget(Optional<Integer> maxChars, Optional<Integer> maxTokens, Optional<Integer> warnTokens,
        Map<String, ResultBudget> tools) {

    /** Characters of text one call may hand the agent when nothing else is set (Claude Code's default). */
    public static final int DEFAULT_MAX_CHARS = 50_000;
    /** Estimated tokens one call may hand the agent when nothing else is set (Claude Code's default). */
    public static final int DEFAULT_MAX_TOKENS = 25_000;
    /** Estimated tokens above which a result is noted and logged as large (Claude Code's warning threshold). */
    public static final int DEFAULT_WARN_TOKENS = 10_000;
    /** The most a server may ask for with {@code anthropic/maxResultSizeChars} (Claude Code's ceiling). */
    public static final int MAX_SERVER_HINT_CHARS = 500_000;
    /** The {@code _meta} key by which a server asks for a tool's character bound. */
    public static final String SERVER_HINT_KEY = "anthropic/maxResultSizeChars";

    /** Nothing set: every bound comes from the next layer. */
    public static final ResultBudget NONE = new ResultBudget(Optional.empty(), Optional.empty(), Optional.empty(),
            Map.of());

    /** Validates (bounds positive, a tool's entry has no tools of its own) and copies. */
    public ResultBudget {
        Objects.requireNonNull(maxChars, "maxChars");
        Objects.requireNonNull(maxTokens, "maxTokens");
        Objects.requireNonNull(warnTokens, "warnTokens");
        maxChars.ifPresent(v -> positive("maxChars", v));
        maxTokens.ifPresent(v -> positive("maxTokens", v));
        warnTokens.ifPresent(v -> positive("warnTokens", v));
        tools = Map.copyOf(tools);
        tools.forEach((name, budget) -> {
            if (!budget.tools().isEmpty()) {
                throw new IllegalArgumentException("the result budget of tool \"" + name + "\" cannot have tools");
            }
        });
    }

    /**
     * @param maxChars see {@link #maxChars()}
     * @param maxTokens see {@link #maxTokens()}
     * @param warnTokens see {@link #warnTokens()}
     * @return a budget of these bounds (absent where {@code null}), for every tool alike
     */
    public static ResultBudget of(Integer maxChars, Integer maxTokens, Integer warnTokens) {
        return new ResultBudget(Optional.ofNullable(maxChars), Optional.ofNullable(maxTokens),
                Optional.ofNullable(warnTokens), Map.of());
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /** @return each bound this leaves unset taken from {@code fallback}; tools of both, this one's entries first */
    public ResultBudget orElse(ResultBudget fallback) {
        Map<String, ResultBudget> merged = new LinkedHashMap<>(fallback.tools);
        tools.forEach((name, budget) -> merged.merge(name, budget, (old, mine) -> mine.orElse(old)));
        return new ResultBudget(maxChars.or(fallback::maxChars), maxTokens.or(fallback::maxTokens),
                warnTokens.or(fallback::warnTokens), merged);
    }

    /**
     * @param toolName a tool's name on its server
     * @return the bounds for that tool: its entry's, the rest from this budget (its {@code tools} empty)
     */
    public ResultBudget forTool(String toolName) {
        ResultBudget own = tools.getOrDefault(toolName, NONE);
        return new ResultBudget(own.maxChars.or(() -> maxChars), own.maxTokens.or(() -> maxTokens),
                own.warnTokens.or(() -> warnTokens), Map.of());
    }

    /** @return whether no bound is set */
    public boolean isEmpty() {
        return maxChars.isEmpty() && maxTokens.isEmpty() && warnTokens.isEmpty() && tools.isEmpty();
    }

    @Override
    public String toString() {
        return "ResultBudget[" + maxChars.map(v -> "maxChars=" + v + " ").orElse("")
                + maxTokens.map(v -> "maxTokens=" + v + " ").orElse("")
                + warnTokens.map(v -> "warnTokens=" + v + " ").orElse("") + (tools.isEmpty() ? "" : "tools=" + tools)
                + "]";
    }
}
