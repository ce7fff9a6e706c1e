package mcp.cli.internal;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code remove}: deletes a server entry from the mcp-host config file that defines it. */
@Command(name = "remove", description = {
    "Remove a server from mcp-host's config: the project file if it defines it, else the user file"
            + " (or the --config file)."})
final class RemoveCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "NAME", description = "The server.")
    String name;

    @Option(names = "--project", description = "Only look in project files.")
    boolean project;

    @Override
    public Integer call() {
        CliContext context = root.context();
        ConfigFileEditor editor = Edits.locate(context, name, project);
        editor.removeServer(name);
        editor.save();
        Edits.report(context, "removed", name, editor.file());
        return ExitCodes.OK;
    }
}
