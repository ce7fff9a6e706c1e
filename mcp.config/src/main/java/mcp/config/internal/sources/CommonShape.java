package mcp.config.internal.sources;

import java.util.Optional;

/**
 * The server entry most tools share (Claude Code and Claude Desktop, Cursor, Windsurf, Gemini CLI,
 * VS Code, mcp-host): {@code type}, {@code command}, {@code args}, {@code env}, {@code cwd},
 * {@code url}, {@code headers}, {@code timeout} (ms), {@code toolTimeout} (ms, mcp-host's own: the
 * bound of a tool call when it differs from {@code timeout}), {@code enabled}, {@code disabled},
 * {@code auth}, {@code enabledTools}, {@code disabledTools}. Unknown keys are ignored: every tool
 * adds its own.
 */
final class CommonShape {

    private CommonShape() {
    }

    static void read(ServerEntry entry, SpecBuilder spec) {
        spec.type = entry.string("type");
        spec.command = entry.string("command");
        spec.args = entry.stringList("args", true).orElse(spec.args);
        entry.stringMap("env").ifPresent(spec.env::putAll);
        spec.cwd = entry.string("cwd");
        spec.url = entry.string("url");
        entry.stringMap("headers").ifPresent(spec.headers::putAll);
        spec.timeoutMillis = entry.millis("timeout");
        spec.toolTimeoutMillis = entry.millis("toolTimeout");
        spec.enabled = enabled(entry);
        spec.auth = entry.auth("auth");
        spec.enabledTools = entry.stringList("enabledTools", false);
        spec.disabledTools = entry.stringList("disabledTools", false).orElse(spec.disabledTools);
    }

    /**
     * {@code enabled} as written, and {@code disabled} (Windsurf, Claude Desktop) as its negation;
     * when both are written, either one saying "off" turns the server off.
     */
    private static Optional<Boolean> enabled(ServerEntry entry) {
        Optional<Boolean> enabled = entry.bool("enabled");
        Optional<Boolean> disabled = entry.bool("disabled");
        if (disabled.orElse(false)) {
            return Optional.of(false);
        }
        if (enabled.isEmpty() && disabled.isPresent()) {
            return Optional.of(true);
        }
        return enabled;
    }
}
