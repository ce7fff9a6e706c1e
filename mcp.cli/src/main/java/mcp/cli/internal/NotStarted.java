package mcp.cli.internal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import mcp.api.McpJson;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import tools.jackson.databind.node.ObjectNode;

/**
 * The configured servers that were not started, and why, as {@code tools} and {@code status} report them:
 * whichever decision held a server back (mcp-host's approval, the owning tool's approval or trust, a
 * {@code disabled} flag, project config off, the Exa or another filter), a person looking at what runs must
 * see it there, not only in {@code list}. Two kinds of skipped entries are left out because they are shown
 * otherwise: an invalid entry is a load error (a failed server), and a shadowed one names a server that
 * runs from another file.
 */
final class NotStarted {

    private NotStarted() {
    }

    /**
     * @param discovery what discovery found
     * @param onlyServer only this server, or {@code null} for all
     * @return the entries not started, in discovery order
     */
    static List<SkippedServer> of(DiscoveryResult discovery, String onlyServer) {
        return discovery.skipped().stream()
                .filter(skipped -> skipped.reason() != SkippedServer.Reason.INVALID
                        && skipped.reason() != SkippedServer.Reason.SHADOWED)
                .filter(skipped -> onlyServer == null || onlyServer.equals(skipped.name()))
                .toList();
    }

    /** @return the reason as the JSON output writes it, e.g. {@code not-consented} */
    static String reasonId(SkippedServer skipped) {
        return skipped.reason().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @return {@code status}'s word for it: {@code not-approved} while mcp-host's approval is missing, else
     *     {@code inactive}, as {@code list} says
     */
    static String status(SkippedServer skipped) {
        return skipped.reason() == SkippedServer.Reason.NOT_APPROVED ? "not-approved" : "inactive";
    }

    /** Adds what {@code tools --json} and {@code status --json} both say of one: reason, where, owner, approval. */
    static void describe(ObjectNode node, SkippedServer skipped) {
        node.put("reason", reasonId(skipped));
        node.put("provider", skipped.source().providerId());
        node.put("path", skipped.source().path().map(Path::toString).orElse(null));
        skipped.owner().ifPresent(owner -> node.putObject("owner").put("state", owner.kind().id())
                .put("reason", owner.reason()));
        skipped.approval().ifPresent(approval -> node.set("approval", Listing.approvalJson(approval)));
    }

    /** @return {@code tools --json}'s entry: {@code {name, detail, reason, provider, path, owner?, approval?}} */
    static ObjectNode json(SkippedServer skipped) {
        ObjectNode node = McpJson.object();
        node.put("name", skipped.name());
        node.put("detail", skipped.detail());
        describe(node, skipped);
        return node;
    }

    /** @return e.g. {@code not started (Claude Code, /work/app/.mcp.json): pending approval in Claude Code ...} */
    static String line(SkippedServer skipped) {
        return "not started (" + ServerLookup.describe(skipped.source()) + "): " + skipped.detail();
    }

    /** Prints what changed in a definition since its approval, under its line. */
    static void printChanges(PrintStream out, SkippedServer skipped) {
        skipped.approval().ifPresent(approval -> approval.changes()
                .forEach(change -> out.println("    changed: " + change)));
    }
}
