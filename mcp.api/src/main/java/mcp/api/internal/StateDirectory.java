package mcp.api.internal;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where mcp-host keeps its state (approvals, pins, server logs): {@code $XDG_STATE_HOME/mcp-host/} (an absolute
 * {@code XDG_STATE_HOME} only, as the XDG specification says), else {@code ~/.local/state/mcp-host/}.
 */
public final class StateDirectory {

    private StateDirectory() {
    }

    /**
     * @param environment the environment ({@code XDG_STATE_HOME})
     * @param home the user's home directory
     * @return mcp-host's state directory
     */
    public static Path of(Map<String, String> environment, Path home) {
        String xdg = environment.get("XDG_STATE_HOME");
        Path base = xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : home.resolve(".local").resolve("state");
        return base.resolve("mcp-host").toAbsolutePath().normalize();
    }
}
