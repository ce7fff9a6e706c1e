package mcp.api;

import java.util.List;
import java.util.Optional;

/**
 * The per-tool decisions of the tool that owns a server's config ({@link ServerConfig#toolPolicy()}): its rules in
 * the order that tool weighs them, the first that matches a tool deciding its {@link CallPolicy}. A source writes the
 * owner's precedence into that order (Claude Code: every deny rule, then every ask rule, then every allow rule, from
 * whichever file; Codex: its tool lists, then a tool's {@code approval_mode}, then the server's default).
 *
 * @param rules the rules, first match wins
 */
public record ToolPolicy(List<ToolRule> rules) {

    /** No rule: every tool {@link CallPolicy#DEFAULT}. */
    public static final ToolPolicy NONE = new ToolPolicy(List.of());

    /** Copies. */
    public ToolPolicy {
        rules = List.copyOf(rules);
    }

    /**
     * @param tool a tool of the server
     * @return the owner's decision about calling it
     */
    public CallPolicy decide(ToolDefinition tool) {
        for (ToolRule rule : rules) {
            if (rule.matches(tool)) {
                return CallPolicy.of(rule);
            }
        }
        return CallPolicy.DEFAULT;
    }

    /**
     * Whether the owner withholds the tool of this name from the agent. Decided by the name alone (as a listing's
     * changes are known by name): the owners deny tools by name, never by their annotations.
     *
     * @param toolName a tool's name on the server
     * @return the rule that denies it, or empty
     */
    public Optional<ToolRule> denial(String toolName) {
        CallPolicy policy = decide(ToolDefinition.of(toolName, null, McpJson.object()));
        return policy.decision() == CallPolicy.Decision.DENY ? policy.rule() : Optional.empty();
    }

    /** @return whether there is no rule */
    public boolean isEmpty() {
        return rules.isEmpty();
    }
}
