package mcp.cli.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import mcp.api.ApprovalState;
import mcp.api.PendingServer;
import mcp.api.spi.ConsentHandler;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.consent.Approvals;

/**
 * What {@code approve} and {@code deny} share: finding the project servers a name means, and deciding
 * about them through discovery itself, so that what is saved is exactly the definition discovery read
 * from the file at that moment (and shown to the user).
 */
final class Consents {

    private Consents() {
    }

    /** @return the approvals store the commands' hosts use (that of the CLI's environment and home) */
    static Approvals store(CliContext context) {
        return Approvals.forUser(context.env(), context.home());
    }

    /**
     * Decides about servers: revokes what is stored about them where a decision would otherwise not be
     * asked for (a denial, to approve; an approval, to deny), then discovers with a handler that answers
     * {@code decision} for exactly these names.
     *
     * @param context the command's context
     * @param names the servers (all pending project servers with {@code all})
     * @param all whether every pending (or changed) project server is meant
     * @param decision approve or deny
     * @return the discovery after the decision, and the servers decided about
     * @throws CliException (usage) when a name is not a project server that needs mcp-host's decision
     */
    static Outcome decide(CliContext context, List<String> names, boolean all, ConsentHandler.Decision decision) {
        DiscoveryResult before = context.discover(ConsentHandler.DENY_AND_REPORT);
        Map<String, Path> files = new LinkedHashMap<>();
        for (SkippedServer skipped : before.skipped()) {
            if (skipped.reason() == SkippedServer.Reason.NOT_APPROVED && (all ? skipped.approval()
                    .map(a -> a.kind() != ApprovalState.Kind.DENIED).orElse(false) : names.contains(skipped.name()))) {
                files.putIfAbsent(skipped.name(), skipped.source().path().orElse(context.workingDirectory()));
            }
        }
        if (decision == ConsentHandler.Decision.DENY) {
            before.approvals().forEach((name, state) -> {
                if (names.contains(name)) {
                    files.putIfAbsent(name, before.sources().get(name).path().orElse(context.workingDirectory()));
                }
            });
        }
        for (String name : names) {
            if (!files.containsKey(name)) {
                throw CliException.usage(whyNot(before, name, decision));
            }
        }
        Approvals store = store(context);
        for (Map.Entry<String, Path> server : files.entrySet()) {
            Optional<ApprovalState> state = stateOf(before, server.getKey());
            boolean stored = state.map(s -> decision == ConsentHandler.Decision.APPROVE
                    ? s.kind() == ApprovalState.Kind.DENIED : s.startsServer()).orElse(false);
            if (stored) {
                try {
                    store.revoke(server.getValue(), server.getKey());
                } catch (IOException e) {
                    throw CliException.usage(e.getMessage());
                }
            }
        }
        Set<String> decided = Collections.unmodifiableSet(new LinkedHashSet<>(files.keySet()));
        DiscoveryResult after = context.discover(new ConsentHandler() {
            @Override
            public Decision decide(PendingServer server) {
                return decided.contains(server.name()) ? decision : Decision.LEAVE_PENDING;
            }
        });
        return new Outcome(after, decided);
    }

    /**
     * @param after the discovery after the decision
     * @param decided the servers decided about
     */
    record Outcome(DiscoveryResult after, Set<String> decided) {
    }

    private static Optional<ApprovalState> stateOf(DiscoveryResult discovery, String name) {
        ApprovalState winner = discovery.approvals().get(name);
        if (winner != null) {
            return Optional.of(winner);
        }
        return discovery.skipped().stream().filter(s -> s.name().equals(name) && s.approval().isPresent())
                .map(s -> s.approval().get()).findFirst();
    }

    /** @return why a name cannot be approved or denied, for people */
    private static String whyNot(DiscoveryResult discovery, String name, ConsentHandler.Decision decision) {
        if (discovery.configs().containsKey(name)) {
            ApprovalState approval = discovery.approvals().get(name);
            return approval == null
                    ? "MCP server \"" + name + "\" is not from a project file (" + ServerLookup.describe(discovery.sources()
                            .get(name)) + "): it needs no approval"
                    : "MCP server \"" + name + "\" is already " + (approval.kind() == ApprovalState.Kind.APPROVED
                            ? "approved" : "started (" + approval.reason() + ")");
        }
        List<String> reasons = new ArrayList<>();
        for (SkippedServer skipped : discovery.skipped()) {
            if (skipped.name().equals(name)) {
                reasons.add(skipped.detail() + " (" + ServerLookup.describe(skipped.source()) + ")");
            }
        }
        if (!reasons.isEmpty()) {
            return "MCP server \"" + name + "\" cannot be " + (decision == ConsentHandler.Decision.APPROVE ? "approved"
                    : "denied") + " in mcp-host: " + String.join("; ", reasons);
        }
        return "No MCP server named \"" + name + "\"." + Suggestions.didYouMean(name, ServerLookup.names(discovery));
    }
}
