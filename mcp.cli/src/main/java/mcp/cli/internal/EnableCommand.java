package mcp.cli.internal;

import picocli.CommandLine.Command;

/** {@code enable}: {@code "enabled": true}. */
@Command(name = "enable", description = {
    "Enable a server in mcp-host's config (\"enabled\": true): the project file if it defines it, else the user file"
            + " (or the --config file)."})
final class EnableCommand extends ToggleCommand {

    @Override
    boolean enabled() {
        return true;
    }
}
