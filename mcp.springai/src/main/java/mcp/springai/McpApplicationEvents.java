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

/**
 * Publishes a session's changes as Spring application events: {@link McpToolsChangedEvent},
 * {@link McpSurfacesChangedEvent} and {@link McpServerStatusEvent}. The events are published on the manager's event
 * thread, one at a time and in order, so a listener that blocks holds up the next event (not the servers): hand long
 * work to an executor, or mark the listener {@code @Async}.
 *
 * <p>Closing it stops the publishing (the auto-configuration closes it with the context, before the host).
 */
public final class McpApplicationEvents implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(McpApplicationEvents.class);

    private final McpManager manager;
    private final ApplicationEventPublisher publisher;
    private volatile boolean open = true;
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
     * Starts publishing.
     *
     * @param session the session whose tool set changes are published; its manager's status and surface changes too
     * @param publisher where to publish (the application context)
     */
    public McpApplicationEvents(ToolSession session, ApplicationEventPublisher publisher) {
        Objects.requireNonNull(session, "session");
        this.manager = session.lastLoad().manager();
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        // The session has no way to drop a listener: this one goes quiet on close instead.
        session.onToolsChanged(tools -> publish(new McpToolsChangedEvent(session, tools)));
        manager.addListener(listener);
    }

    private void publish(Object event) {
        if (!open) {
            return;
        }
        try {
            publisher.publishEvent(event);
        } catch (RuntimeException e) {
            // A listener's failure (or a context closing meanwhile) must not reach the manager's event thread.
            LOG.warn("A listener of {} failed: {}", event.getClass().getSimpleName(), e.toString(), e);
        }
    }

    /** Stops publishing. */
    @Override
    public void close() {
        open = false;
        manager.removeListener(listener);
    }
}
