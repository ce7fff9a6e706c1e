package mcp.cli.internal;

import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code enable} and {@code disable}: set {@code "enabled"} of an entry in the mcp-host config file that defines it. */
abstract class ToggleCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The server.")
    String name;

    @Option(names = "--project", description = "Only look in project files.")
    boolean project;

    /** @return the value to write */
    abstract boolean enabled();

    @Override
    public Integer call() {
        CliContext context = root.context();
        ConfigFileEditor editor = Edits.locate(context, name, project);
        editor.serverObject(name).put("enabled", enabled());
        editor.save();
        Edits.report(context, enabled() ? "enabled" : "disabled", name, editor.file());
        return ExitCodes.OK;
    }
}
