package mcp.springai;

import java.util.List;
import java.util.Objects;
import mcp.host.ToolSession;
import mcp.manager.ManagerListener;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import mcp.manager.SurfaceSlice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes a session's changes as Spring application events: {@link McpToolsChangedEvent},
 * {@link McpSurfacesChangedEvent} and {@link McpServerStatusEvent}.
 *
 * <p>A {@link SmartLifecycle}: it starts when the context has created every bean (so {@code @EventListener} methods
 * hear everything) and first publishes where things stand, a status event for every server and the tool set, so a
 * listener never misses what happened while the context was starting. It stops when the context closes, before the
 * session and the host are closed.
 *
 * <p>The events are published on the manager's event thread, one at a time and in order, so a listener that blocks
 * holds up the next event (not the servers): hand long work to an executor, or mark the listener {@code @Async}.
 */
public final class McpApplicationEvents implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(McpApplicationEvents.class);

    private final ToolSession session;
    private final McpManager manager;
    private final ApplicationEventPublisher publisher;
    private volatile boolean running;
    private final ManagerListener listener = new ManagerListener() {
        @Override
        public void onStatusChange(String serverName, ServerStatus status) {
            publish(new McpServerStatusEvent(manager, serverName, status));
        }

        @Override
        public void onSurfacesChanged(String serverName, List<SurfaceSlice> surfaces) {
            publish(new McpSurfacesChangedEvent(manager, serverName, surfaces));
        }
    };

    /**
     * @param session the session whose tool set changes are published; its manager's status and surface changes too
     * @param publisher where to publish (the application context)
     */
    public McpApplicationEvents(ToolSession session, ApplicationEventPublisher publisher) {
        this.session = Objects.requireNonNull(session, "session");
        this.manager = session.lastLoad().manager();
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        // The session has no way to drop a listener: this one goes quiet when stopped instead.
        session.onToolsChanged(tools -> publish(new McpToolsChangedEvent(session, tools)));
    }

    /** Starts publishing: first every server's status and the tool set as they are now, then each change. */
    @Override
    public void start() {
        running = true;
        manager.addListener(listener);
        manager.statuses().forEach((server, status) -> publish(new McpServerStatusEvent(manager, server, status)));
        publish(new McpToolsChangedEvent(session, session.tools()));
    }

    /** Stops publishing. */
    @Override
    public void stop() {
        running = false;
        manager.removeListener(listener);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void publish(Object event) {
        if (!running) {
            return;
        }
        try {
            publisher.publishEvent(event);
        } catch (RuntimeException e) {
            // A listener's failure (or a context closing meanwhile) must not reach the manager's event thread.
            LOG.warn("A listener of {} failed: {}", event.getClass().getSimpleName(), e.toString(), e);
        }
    }
}
