package mcp.config.internal.sources;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.Sandbox;

/**
 * The {@code sandbox} object as VS Code's {@code mcp.json} writes it, which mcp-host's own format writes the same
 * way: {@code {"filesystem": {"allowWrite": [...], "denyRead": [...], "denyWrite": [...]}, "network":
 * {"allowedDomains": [...], "deniedDomains": [...]}}}, every part optional. Paths and domains are strings and go
 * through the source's variable translation ({@code ${workspaceFolder}}, {@code ${userHome}} in VS Code's file).
 */
final class SandboxShape {

    private static final Map<String, List<String>> FIELDS = Map.of(
            "filesystem", List.of("allowWrite", "denyRead", "denyWrite"),
            "network", List.of("allowedDomains", "deniedDomains"));

    private SandboxShape() {
    }

    /**
     * @param sandbox the entry of the {@code sandbox} object
     * @param strict whether an unknown key is a problem that skips the server (mcp-host's own format, where a typo
     *     must not pass for a rule), or a note about a key that is ignored (VS Code's, which passes keys of its own
     *     to its sandbox runtime)
     * @return the rules; empty after a problem that skips the server
     */
    static Optional<Sandbox> read(ServerEntry sandbox, boolean strict) {
        for (String key : sandbox.keys()) {
            if (!FIELDS.containsKey(key)) {
                unknown(sandbox, key, "\"sandbox\" has no field \"" + key + "\" (filesystem, network)", strict);
            }
        }
        Optional<ServerEntry> filesystem = sandbox.nested("filesystem");
        Optional<ServerEntry> network = sandbox.nested("network");
        for (Map.Entry<String, Optional<ServerEntry>> part : Map.of("filesystem", filesystem, "network", network)
                .entrySet()) {
            part.getValue().ifPresent(entry -> {
                for (String key : entry.keys()) {
                    if (!FIELDS.get(part.getKey()).contains(key)) {
                        unknown(entry, key, "\"sandbox\".\"" + part.getKey() + "\" has no field \"" + key + "\" ("
                                + String.join(", ", FIELDS.get(part.getKey())) + ")", strict);
                    }
                }
            });
        }
        Sandbox.Filesystem files = new Sandbox.Filesystem(list(filesystem, "allowWrite"), list(filesystem, "denyRead"),
                list(filesystem, "denyWrite"));
        Sandbox.Network net = new Sandbox.Network(list(network, "allowedDomains"), list(network, "deniedDomains"));
        return sandbox.failed() ? Optional.empty() : Optional.of(new Sandbox(files, net));
    }

    private static List<String> list(Optional<ServerEntry> part, String key) {
        return part.flatMap(entry -> entry.stringList(key, false)).orElse(List.of());
    }

    private static void unknown(ServerEntry entry, String key, String message, boolean strict) {
        if (strict) {
            entry.error(Pointers.child(entry.pointer(), key), message);
        } else {
            entry.note(key, message + "; it is ignored");
        }
    }
}
