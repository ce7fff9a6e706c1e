package mcp.cli.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import mcp.api.ApprovalState;
import mcp.api.McpJson;
import mcp.api.OwnerState;
import mcp.api.SourceMetadata;
import mcp.api.internal.Secrets;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every server discovery saw, used or not, grouped by the file it came from: what {@code list}
 * and the shell's {@code /mcp list} print.
 */
final class Listing {

    /**
     * One discovered entry.
     *
     * @param name the server name
     * @param type {@code stdio}, {@code http} or {@code sse}; {@code null} when not known (see {@link EntryTypes})
     * @param source where it came from
     * @param enabled {@code false} only for an entry that says {@code enabled: false}
     * @param status {@code connected}, {@code connecting}, {@code failed} (live, in the shell),
     *     {@code not connected}, {@code inactive}, {@code invalid} or {@code shadowed}
     * @param error the validation message, skip reason or connect error; {@code null} when none
     * @param owner what the tool owning the file decided (approved, pending approval, untrusted folder, ...),
     *     {@code null} when the entry's start did not depend on it
     * @param approval mcp-host's approval of an entry from a project-level file (approved, pending, changed,
     *     denied), {@code null} for the others and for entries skipped before it was asked
     * @param lazy for a lazy server ({@code "lazy": true}, or the shell's {@code --lazy}), what to say of it:
     *     {@code lazy}, or in the shell {@code lazy, stopped, 12 tools cached}; {@code null} for the others
     */
    record Entry(String name, String type, SourceMetadata source, boolean enabled, String status, String error,
            OwnerState owner, ApprovalState approval, String lazy) {

        Entry(String name, String type, SourceMetadata source, boolean enabled, String status, String error,
                OwnerState owner, ApprovalState approval) {
            this(name, type, source, enabled, status, error, owner, approval, null);
        }

        String mark() {
            switch (status) {
                case "connected": return "●";
                case "connecting": return "◐";
                case "invalid":
                case "failed": return "✗";
                case "inactive":
                case "shadowed": return "◌";
                default: return "○";
            }
        }
    }

    private Listing() {
    }

    /**
     * @param discovery what discovery found
     * @param manager the running servers (the shell's), to show live states; {@code null} outside the shell
     * @return the entries grouped by source: winners first, then skipped entries, each in discovery order
     */
    static Map<SourceMetadata, List<Entry>> of(DiscoveryResult discovery, McpManager manager) {
        Map<SourceMetadata, List<Entry>> groups = new LinkedHashMap<>();
        discovery.configs().forEach((name, config) -> {
            SourceMetadata source = discovery.sources().get(name);
            String status = "not connected";
            String error = null;
            String lazy = config.lazy().isPresent() ? "lazy" : null;
            if (manager != null) {
                ServerStatus live = manager.status(name);
                status = live.state() == ServerStatus.State.DISCONNECTED ? "not connected"
                        : live.state().name().toLowerCase(Locale.ROOT);
                error = Secrets.maskText(live.error().orElse(null));
                if (manager.lazyIdleTimeout(name).isPresent()) {
                    int tools = manager.toolsOf(name).size();
                    lazy = live.state() == ServerStatus.State.STOPPED ? "lazy, stopped, " + tools
                            + (tools == 1 ? " tool" : " tools") + " cached" : "lazy";
                }
            }
            groups.computeIfAbsent(source, s -> new ArrayList<>())
                    .add(new Entry(name, config.type(), source, config.enabled(), status, error,
                            discovery.owners().get(name), discovery.approvals().get(name), lazy));
        });
        EntryTypes types = new EntryTypes();
        for (SkippedServer skipped : discovery.skipped()) {
            String status = switch (skipped.reason()) {
                case INVALID -> "invalid";
                case SHADOWED -> "shadowed";
                default -> "inactive";
            };
            groups.computeIfAbsent(skipped.source(), s -> new ArrayList<>())
                    .add(new Entry(skipped.name(), types.of(skipped), skipped.source(),
                            skipped.reason() != SkippedServer.Reason.DISABLED, status, skipped.detail(),
                            skipped.owner().orElse(null), skipped.approval().orElse(null)));
        }
        return groups;
    }

    /** @return the {@code list --json} array */
    static ArrayNode toJson(Map<SourceMetadata, List<Entry>> groups) {
        ArrayNode array = McpJson.mapper().createArrayNode();
        groups.values().forEach(entries -> entries.forEach(entry -> {
            ObjectNode node = array.addObject();
            node.put("name", entry.name());
            node.put("type", entry.type());
            node.put("provider", entry.source().providerId());
            node.put("providerName", entry.source().providerName());
            node.put("path", entry.source().path().map(Path::toString).orElse(null));
            node.put("level", entry.source().level().name().toLowerCase(Locale.ROOT));
            node.put("enabled", entry.enabled());
            node.put("status", entry.status());
            if (entry.lazy() != null) {
                node.put("lazy", true);
            }
            node.put("error", entry.error());
            if (entry.owner() != null) {
                ObjectNode owner = node.putObject("owner");
                owner.put("state", entry.owner().kind().id());
                owner.put("reason", entry.owner().reason());
            }
            if (entry.approval() != null) {
                node.set("approval", approvalJson(entry.approval()));
            }
        }));
        return array;
    }

    /** @return {@code {state, reason, sha256, definition, changes}}: secrets masked */
    static ObjectNode approvalJson(ApprovalState approval) {
        ObjectNode node = McpJson.object();
        node.put("state", approval.kind().id());
        node.put("reason", approval.reason());
        node.put("sha256", approval.definitionHash());
        approval.definition().forEach(node.putArray("definition")::add);
        ArrayNode changes = node.putArray("changes");
        approval.changes().forEach(changes::add);
        return node;
    }

    /** @return the heading of a group, e.g. {@code Claude Code (project): /work/app/.mcp.json} */
    static String heading(SourceMetadata source) {
        return source.providerName() + " (" + source.level().name().toLowerCase(Locale.ROOT) + ")"
                + source.path().map(p -> ": " + p).orElse("");
    }

    /**
     * The type of a skipped entry, which discovery does not validate (a disabled server never
     * becomes a config): read from its JSON file at its JSON pointer location, the way validation
     * defaults it. Files that are not JSON (Codex's TOML) or do not parse give no type.
     */
    static final class EntryTypes {
        private final Map<Path, Optional<JsonNode>> files = new HashMap<>();

        String of(SkippedServer skipped) {
            Optional<Path> file = skipped.source().path();
            if (file.isEmpty() || !skipped.location().startsWith("/")
                    || !file.get().getFileName().toString().endsWith(".json")) {
                return null;
            }
            JsonNode entry;
            try {
                entry = files.computeIfAbsent(file.get(), EntryTypes::read)
                        .map(root -> root.at(skipped.location())).orElse(null);
            } catch (IllegalArgumentException e) {
                return null; // not a JSON pointer after all
            }
            if (entry == null || !entry.isObject()) {
                return null;
            }
            JsonNode type = entry.get("type");
            if (type != null && type.isString() && !type.asString().isBlank()) {
                return type.asString().trim().toLowerCase(Locale.ROOT);
            }
            boolean command = entry.path("command").isString();
            boolean url = entry.path("url").isString();
            return url && !command ? "http" : "stdio";
        }

        private static Optional<JsonNode> read(Path file) {
            try {
                return Optional.of(McpJson.mapper().readTree(Files.readString(file)));
            } catch (IOException | RuntimeException e) {
                // Best effort: the type is decoration, and discovery has already reported the file.
                return Optional.empty();
            }
        }
    }
}
