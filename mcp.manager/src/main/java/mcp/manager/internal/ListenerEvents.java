package mcp.manager.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mcp.api.ToolChanges;
import mcp.manager.BridgedTool;
import mcp.manager.ManagerListener;
import mcp.manager.ServerStatus;
import mcp.manager.SurfaceSlice;
import org.slf4j.Logger;

/**
 * A manager's events to its listeners: delivered in order, one at a time, on a worker thread, with a bound on
 * what may wait. At most {@code capacity} events wait in order; beyond that (a listener that blocks while servers
 * keep changing: a crash loop, a server that keeps changing its tools) the events are coalesced until the queue
 * has drained: the latest tool set, the latest surfaces, each resource update (once per server and URI), each
 * server's latest pin report and each server's latest status wait in their place and are delivered in that order
 * once the ordered ones are. A slow listener so skips intermediate states
 * but always hears the last one, and what waits is bounded by the number of servers (and of resource updates, by
 * {@value #MAX_WAITING_UPDATES}; more are dropped). One warning per such episode.
 */
public final class ListenerEvents {

    /** The most distinct resource updates that wait while coalescing; more are dropped. */
    static final int MAX_WAITING_UPDATES = 1_000;

    private final List<ManagerListener> listeners;
    private final Logger log;
    private final ClientThreads.Serial queue;
    private final Object lock = new Object();
    /* Guarded by lock: the coalesced events of the current episode. */
    private boolean coalescing;
    private long coalesced;
    private String viewServer;
    private List<BridgedTool> view;
    private String surfacesServer;
    private List<SurfaceSlice> surfaces;
    private final Map<String, ToolChanges> reports = new LinkedHashMap<>();
    private final Map<String, ServerStatus> statuses = new LinkedHashMap<>();
    private final java.util.Set<Map.Entry<String, String>> updates = new java.util.LinkedHashSet<>();

    /**
     * @param listeners the listeners (read at each delivery)
     * @param log where a listener's failure and an episode of coalescing are reported
     * @param capacity how many events may wait in order
     */
    public ListenerEvents(List<ManagerListener> listeners, Logger log, int capacity) {
        this.listeners = listeners;
        this.log = log;
        this.queue = new ClientThreads.Serial(log, capacity);
    }

    /** {@link ManagerListener#onStatusChange}. */
    public void status(String server, ServerStatus status) {
        post(() -> listeners.forEach(l -> l.onStatusChange(server, status)), () -> statuses.put(server, status));
    }

    /** {@link ManagerListener#onToolsChanged}. */
    public void toolsChanged(String server, List<BridgedTool> tools) {
        post(() -> listeners.forEach(l -> l.onToolsChanged(server, tools)), () -> {
            viewServer = viewServer == null || viewServer.equals(server) ? server : "*";
            view = tools;
        });
    }

    /** {@link ManagerListener#onSurfacesChanged}. */
    public void surfacesChanged(String server, List<SurfaceSlice> slices) {
        post(() -> listeners.forEach(l -> l.onSurfacesChanged(server, slices)), () -> {
            surfacesServer = surfacesServer == null || surfacesServer.equals(server) ? server : "*";
            surfaces = slices;
        });
    }

    /** {@link ManagerListener#onResourceUpdated}. */
    public void resourceUpdated(String server, String uri) {
        post(() -> listeners.forEach(l -> l.onResourceUpdated(server, uri)), () -> {
            // A server may name any URI (2025: sub-resources of a subscribed one): what waits stays bounded.
            if (updates.size() < MAX_WAITING_UPDATES) {
                updates.add(Map.entry(server, uri));
            }
        });
    }

    /** {@link ManagerListener#onToolChanges}. */
    public void toolChanges(ToolChanges report) {
        post(() -> listeners.forEach(l -> l.onToolChanges(report)), () -> reports.put(report.server(), report));
    }

    /** @return the events that were coalesced instead of delivered one by one, since this manager began */
    public long coalesced() {
        synchronized (lock) {
            return coalesced;
        }
    }

    private void post(Runnable event, Runnable coalesce) {
        synchronized (lock) {
            // Once coalescing, every event waits coalesced until the flush: none may overtake an older state.
            if (!coalescing && queue.offer(event)) {
                return;
            }
            coalesce.run();
            coalesced++;
            if (!coalescing) {
                coalescing = true;
                log.warn("MCP manager listeners are {} events behind; until they catch up, they get each server's "
                        + "latest status and the latest tool set instead of every change", queue.capacity());
                queue.execute(this::flush);
            }
        }
    }

    private void flush() {
        String server;
        List<BridgedTool> tools;
        String surfaceServer;
        List<SurfaceSlice> latestSurfaces;
        List<ToolChanges> latestReports;
        List<Map.Entry<String, ServerStatus>> latestStatuses;
        List<Map.Entry<String, String>> latestUpdates;
        synchronized (lock) {
            server = viewServer;
            tools = view;
            surfaceServer = surfacesServer;
            latestSurfaces = surfaces;
            surfacesServer = null;
            surfaces = null;
            latestReports = new ArrayList<>(reports.values());
            latestStatuses = new ArrayList<>(statuses.entrySet());
            latestUpdates = new ArrayList<>(updates);
            updates.clear();
            viewServer = null;
            view = null;
            reports.clear();
            statuses.clear();
            coalescing = false;
        }
        if (tools != null) {
            listeners.forEach(l -> l.onToolsChanged(server, tools));
        }
        if (latestSurfaces != null) {
            listeners.forEach(l -> l.onSurfacesChanged(surfaceServer, latestSurfaces));
        }
        latestUpdates.forEach(update -> listeners.forEach(l -> l.onResourceUpdated(update.getKey(), update.getValue())));
        latestReports.forEach(report -> listeners.forEach(l -> l.onToolChanges(report)));
        latestStatuses.forEach(entry -> listeners.forEach(l -> l.onStatusChange(entry.getKey(), entry.getValue())));
    }
}
