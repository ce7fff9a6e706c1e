package mcp.manager;

import java.util.List;
import java.util.Objects;

/**
 * What {@link McpManager#reconcileServers} did to make the running servers the set it was given. Each name is in at
 * most one list, in the order given (the removed ones in the manager's order).
 *
 * @param added servers the manager did not know, started
 * @param removed servers no longer given (or given disabled): disconnected, their tools gone, their status forgotten
 * @param changed servers running with another config or pin key than the one given: disconnected, then started with
 *     the given one
 * @param kept servers running (connected, connecting or reconnecting) with the config and pin key given: left alone,
 *     the same connection and the same tools
 * @param retried servers the manager knew but did not run (their connect failed, their connection closed for good):
 *     started again
 * @param connect what starting the added, changed and retried servers gave at the startup gate: every tool of the
 *     manager then, and the errors of those that failed
 */
public record ReconcileResult(List<String> added, List<String> removed, List<String> changed, List<String> kept,
        List<String> retried, ConnectResult connect) {

    /** Copies. */
    public ReconcileResult {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        changed = List.copyOf(changed);
        kept = List.copyOf(kept);
        retried = List.copyOf(retried);
        Objects.requireNonNull(connect, "connect");
    }

    /** @return whether any server was started or stopped */
    public boolean changedAnything() {
        return !added.isEmpty() || !removed.isEmpty() || !changed.isEmpty() || !retried.isEmpty();
    }
}
