package mcp.cli.internal;

import java.util.concurrent.Callable;
import mcp.cli.internal.demo.Demo;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code demo}: the whole lifecycle on the test servers that ship with mcp-host. */
@Command(name = "demo", description = {
    "Show the whole lifecycle on servers that ship with mcp-host: cold start, warm start with deferred tools,"
            + " calls, live reload, teardown. Needs nothing else installed."})
final class DemoCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Override
    public Integer call() {
        CliIo io = root.io();
        return Demo.run(io.out(), io.err());
    }
}
