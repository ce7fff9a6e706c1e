package mcp.manager.internal;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import mcp.api.Content;
import mcp.api.ResultBudget;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.manager.TokenCounter;
import mcp.manager.ToolOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * A tool result as the agent gets it within its {@link ResultBudget} (see {@code docs/context-budget.md}): rendered
 * ({@link ResultRenderer}); text over the bounds saved whole to the session's {@link ResultFiles} and replaced by a
 * note with the file's path and a preview within the bounds; text over the warning threshold (within the bounds)
 * passed whole after a one-line note; an error result kept an error, its notes saying it is the tool's error output;
 * images and audio as content items, with a note of their size when their data would have been over the character
 * bound as text.
 */
public final class ResultBudgeting {

    private static final Logger LOG = LoggerFactory.getLogger(ResultBudgeting.class);

    /** The most of a saved result the agent sees at once (Claude Code's preview is about as long). */
    static final int PREVIEW_CHARS = 2_000;

    private ResultBudgeting() {
    }

    /**
     * The bounds of one call, from the most specific layer down: the tool's own entry in the budget; the
     * server's {@code anthropic/maxResultSizeChars} on the result's or the definition's {@code _meta} (characters
     * only, at most {@link ResultBudget#MAX_SERVER_HINT_CHARS}; with it, text is not bounded by tokens unless the
     * tool's own entry says so, as Claude Code does); the server's budget (already merged with the builder's);
     * the defaults.
     *
     * @param maxChars the character bound
     * @param maxTokens the token bound, or {@link Integer#MAX_VALUE} for none
     * @param warnTokens the warning threshold
     * @param serverHint whether the character bound is the server's hint
     */
    record Bounds(int maxChars, int maxTokens, int warnTokens, boolean serverHint) {

        static Bounds of(ResultBudget budget, ToolDefinition tool, ToolResult result) {
            ResultBudget own = budget.tools().getOrDefault(tool.name(), ResultBudget.NONE);
            Optional<Integer> hint = own.maxChars().isPresent() ? Optional.empty()
                    : hint(result.raw().get("_meta")).or(() -> hint(tool.meta().orElse(null)));
            int chars = own.maxChars().or(() -> hint).or(budget::maxChars).orElse(ResultBudget.DEFAULT_MAX_CHARS);
            int tokens = own.maxTokens()
                    .or(() -> hint.isPresent() ? Optional.of(Integer.MAX_VALUE) : budget.maxTokens())
                    .orElse(ResultBudget.DEFAULT_MAX_TOKENS);
            int warn = own.warnTokens().or(budget::warnTokens).orElse(ResultBudget.DEFAULT_WARN_TOKENS);
            return new Bounds(chars, tokens, warn, hint.isPresent());
        }

        private static Optional<Integer> hint(JsonNode meta) {
            JsonNode value = meta == null || !meta.isObject() ? null : meta.get(ResultBudget.SERVER_HINT_KEY);
            if (value == null || !value.isNumber() || value.asDouble() < 1) {
                return Optional.empty();
            }
            return Optional.of((int) Math.min(value.asDouble(), ResultBudget.MAX_SERVER_HINT_CHARS));
        }
    }

    /**
     * @param serverName the tool's server
     * @param tool the tool's definition (its {@code _meta} may hold the server's hint)
     * @param result the call's result
     * @param details the details to attach
     * @param budget the server's budget, merged with the host's
     * @param files where a result over the bounds is saved
     * @return the output for the agent
     */
    public static ToolOutput render(String serverName, ToolDefinition tool, ToolResult result,
            ToolOutput.Details details, ResultBudget budget, ResultFiles files) {
        Bounds bounds = Bounds.of(budget, tool, result);
        ToolOutput rendered = ResultRenderer.render(result, details, bounds.maxChars());
        String text = rendered.text();
        // An error result is kept and previewed as any other (its text matters most), but said to be the tool's error.
        String subject = rendered.isError() ? "This error output of the tool" : "This result";
        String over = null;
        if (text.length() > bounds.maxChars()) {
            over = number(text.length()) + " characters is over the cap of " + number(bounds.maxChars())
                    + " characters" + (bounds.serverHint() ? " (the server's " + ResultBudget.SERVER_HINT_KEY + ")" : "");
        } else if ((long) text.length() * 3 > Math.min(bounds.maxTokens(), bounds.warnTokens())) {
            // A token is at least one UTF-8 byte, a char at most three: shorter text is within both bounds without
            // counting, and a session whose results are all short never loads the encoding.
            int tokens = TokenCounter.get().count(text);
            if (tokens > bounds.maxTokens()) {
                over = "about " + number(tokens) + " tokens is over the cap of " + number(bounds.maxTokens())
                        + " tokens";
            } else if (tokens > bounds.warnTokens()) {
                LOG.warn("MCP server \"{}\": tool \"{}\" returned about {} tokens, over the warning threshold of {}",
                        serverName, tool.name(), tokens, bounds.warnTokens());
                // The agent (and whoever reads its transcript) sees the warning too; the note is not counted.
                String note = "[" + subject + " is large: about " + number(tokens) + " tokens (estimate), over the "
                        + "warning threshold of " + number(bounds.warnTokens()) + " tokens.]";
                return withNote(rendered, note + "\n" + text, note, details.content());
            }
        }
        if (over == null) {
            return rendered;
        }
        String whole = rendered.isError() ? "The whole error output" : "The whole result";
        String note;
        try {
            Path file = files.save(serverName, tool.name(), text);
            LOG.info("MCP server \"{}\": tool \"{}\" returned {} characters{}, saved to {}", serverName, tool.name(),
                    text.length(), rendered.isError() ? " of error output" : "", file);
            note = "[" + subject + " is too large for the context: " + over + ". " + whole + " was saved to " + file
                    + "; read that file, in parts, for more.";
        } catch (UncheckedIOException | IllegalStateException e) {
            LOG.warn("MCP server \"{}\": tool \"{}\": a result of {} characters could not be saved ({}); the agent "
                    + "gets its beginning only", serverName, tool.name(), text.length(), e.getMessage());
            note = "[" + subject + " is too large for the context: " + over + ". It could not be saved to a file, "
                    + "so only its beginning is shown.";
        }
        String preview = preview(text, note, bounds);
        String shown = note + (preview.isEmpty() ? "]" : " Its first " + number(preview.length())
                + " characters follow.]\n" + preview + "\n[... " + number(text.length() - preview.length())
                + " more characters]");
        List<Content> media = new ArrayList<>();
        for (Content item : result.content()) {
            if (item instanceof Content.Image || item instanceof Content.Audio) {
                media.add(item);
            }
        }
        return withNote(rendered, shown, shown, media);
    }

    /**
     * @param rendered the output as rendered (its error flag is kept)
     * @param text what the agent gets
     * @param note the text item the details start with, so that an embedder sending the details sends it too
     * @param items the content items after it
     */
    private static ToolOutput withNote(ToolOutput rendered, String text, String note, List<Content> items) {
        List<Content> content = new ArrayList<>();
        content.add(new Content.Text(note));
        content.addAll(items);
        ToolOutput.Details details = rendered.details();
        return new ToolOutput(text, rendered.isError(), new ToolOutput.Details(details.serverName(),
                details.toolName(), details.isError(), content, details.structuredContent(), details.providerId(),
                details.providerName()));
    }

    /** The beginning of the text that fits beside the note within the bounds (possibly empty), cut at a line end. */
    static String preview(String text, String note, Bounds bounds) {
        int room = Math.min(PREVIEW_CHARS, bounds.maxChars() - note.length() - 100);
        if (room <= 0) {
            return "";
        }
        String preview = cut(text, room);
        TokenCounter counter = TokenCounter.get();
        int tokenRoom = bounds.maxTokens() == Integer.MAX_VALUE ? Integer.MAX_VALUE
                : bounds.maxTokens() - counter.count(note) - 40;
        while (!preview.isEmpty() && counter.count(preview) > tokenRoom) {
            preview = cut(preview, preview.length() / 2);
        }
        return preview;
    }

    private static String cut(String text, int length) {
        if (text.length() <= length) {
            return text;
        }
        int end = length;
        if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        int line = text.lastIndexOf('\n', end - 1);
        return line > end / 2 ? text.substring(0, line) : text.substring(0, end);
    }

    static String number(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }
}
