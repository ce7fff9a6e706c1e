package mcp.api;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What the tool that owns a server's config decided about calling one of its tools: call it without asking,
 * confirm each call with the user, or never call it (the owning tool does not even offer it to its model). It is
 * the embedder's to enforce: mcp-host's agent tools carry it ({@code BridgedTool.callPolicy()},
 * {@code AgentTool.callPolicy()}), the {@code mcp-host call} command honours it, and a denied tool is never in the
 * agent's tool set.
 *
 * <p>Only what the user (or an administrator) wrote counts: a Claude Code {@code permissions} rule, a Codex
 * {@code approval_mode}, a Gemini CLI {@code trust}. Where nothing was written, the policy is {@link #DEFAULT}:
 * {@link Decision#ALLOW} with no {@link #rule()}. The owning tools would still confirm most such calls in their
 * own interface (their default modes), which mcp-host does not copy: it asks no confirmation of its own, and an
 * embedder that wants one decides it for the tools whose {@link #decidedByOwner()} is false.
 *
 * @param decision what to do with a call
 * @param rule the owner's rule that decided, absent for {@link #DEFAULT}
 */
public record CallPolicy(Decision decision, Optional<ToolRule> rule) {

    /** Nothing decided by the owning tool: the call goes ahead, unless the embedder's own policy says otherwise. */
    public static final CallPolicy DEFAULT = new CallPolicy(Decision.ALLOW, Optional.empty());

    /** Validates: a rule's decision is the policy's. */
    public CallPolicy {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(rule, "rule");
        if (rule.isPresent() && rule.get().decision() != decision) {
            throw new IllegalArgumentException("a call policy of " + decision + " cannot come from a rule that says "
                    + rule.get().decision());
        }
    }

    /**
     * @param rule the owner's rule that matched a tool
     * @return the policy that rule sets
     */
    public static CallPolicy of(ToolRule rule) {
        return new CallPolicy(rule.decision(), Optional.of(rule));
    }

    /** What to do with a call. */
    public enum Decision {
        /** Call without asking: the owner allows it ({@link CallPolicy#DEFAULT}: nothing decided). */
        ALLOW,
        /** Ask the user before each call. */
        ASK,
        /** Never call; the tool is withheld from the agent. */
        DENY;

        /** @return the decision as {@code --json} writes it: {@code allow}, {@code ask}, {@code deny} */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** @return whether the owning tool's config decided this (a rule of its own), rather than nothing */
    public boolean decidedByOwner() {
        return rule.isPresent();
    }

    /**
     * @return for people: who decided and by which rule in which file, e.g. {@code Claude Code: permissions.deny
     *     "mcp__github__delete_repo" in /home/u/.claude/settings.json}; {@code no rule of the tool that owns the
     *     server's config} for {@link #DEFAULT}
     */
    public String describe() {
        return rule.map(ToolRule::describe).orElse("no rule of the tool that owns the server's config");
    }
}
