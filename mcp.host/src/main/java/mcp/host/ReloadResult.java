package mcp.host;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import mcp.config.DiscoveryProblem;
import mcp.manager.ReconcileResult;

/**
 * What {@link McpHost#reloadChanged()} did.
 *
 * @param load what the reload found and where it left the servers, as {@link McpHost#load()} says it: every tool of
 *     the manager now, the errors of discovery and of the servers started by this reload, the discovery itself
 * @param changes which servers were added, removed, changed (restarted with their new config), kept (untouched) and
 *     retried
 * @param held servers kept running as they were because the file they come from cannot be read or parsed now (a
 *     file caught half written, a typo), by name, with the problem that names that file and where in it; they
 *     follow the file again at the first reload after it reads. In {@code changes} they count as kept
 */
public record ReloadResult(LoadResult load, ReconcileResult changes, Map<String, DiscoveryProblem> held) {

    /** Copies. */
    public ReloadResult {
        Objects.requireNonNull(load, "load");
        Objects.requireNonNull(changes, "changes");
        held = Collections.unmodifiableMap(new LinkedHashMap<>(held));
    }

    /** @return whether a server was started or stopped */
    public boolean changedAnything() {
        return changes.changedAnything();
    }
}
