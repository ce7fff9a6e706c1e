package mcp.cli.internal;

import picocli.CommandLine.Command;

/** {@code disable}: {@code "enabled": false}; the entry stays, so {@code enable} brings it back as it was. */
@Command(name = "disable", description = {
    "Disable a server in mcp-host's config (\"enabled\": false): the project file if it defines it, else the user"
            + " file (or the --config file)."})
final class DisableCommand extends ToggleCommand {

    @Override
    boolean enabled() {
        return false;
    }
}
