package mcp.cli.internal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import mcp.api.CompletionReference;
import mcp.api.CompletionResult;
import mcp.cli.internal.SurfaceTargets.Target;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code complete}: the values a server suggests for an argument of a prompt or a resource template. */
@Command(name = "complete", description = {
    "Ask a server which values an argument of a prompt or a resource template may take, and print them one per line"
            + " (then the total and whether there are more, when the server says).",
    "--prompt takes SERVER:PROMPT, or PROMPT when only one server has it; --resource the template as listed."
            + " Exit 1 when the server refuses."})
final class CompleteCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    /** What is completed: a prompt or a resource template, one of them. */
    static final class Reference {
        @Option(names = "--prompt", paramLabel = "NAME", required = true, description = "An argument of this prompt.")
        String prompt;

        @Option(names = "--resource", paramLabel = "URI_TEMPLATE", required = true,
                description = "A variable of this resource template, e.g. file:///{path}.")
        String resource;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Reference reference;

    @Parameters(index = "0", paramLabel = "ARGUMENT", description = "The argument (or template variable) to complete.")
    String argument;

    @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE", description = "What is typed of it so far (default: none).")
    String value = "";

    @Option(names = "--context", paramLabel = "NAME=VALUE",
            description = "The value of another argument, already chosen (repeatable).")
    Map<String, String> contextArguments = new LinkedHashMap<>();

    @Option(names = "--server", paramLabel = "NAME", description = "Ask this server (connect only it).")
    String server;

    @Override
    public Integer call() {
        CliContext context = root.context();
        try (Loaded loaded = context.load(server, context.hostBuilder())) {
            Target target = reference.prompt != null
                    ? SurfaceTargets.prompt(loaded, reference.prompt, server, "completions")
                    : SurfaceTargets.resource(loaded, reference.resource, server, "completions", true);
            CompletionReference ref = reference.prompt != null ? CompletionReference.prompt(target.name())
                    : CompletionReference.resourceTemplate(target.name());
            CompletionResult result = SurfaceListing.await(loaded, target.server(),
                    target.client().complete(ref, argument, value, contextArguments));
            if (context.json()) {
                context.printJson(result.raw());
            } else {
                print(context.out(), result);
            }
        }
        return ExitCodes.OK;
    }

    /** The values one per line, then {@code (total N, more available)} when the server gave either. */
    private static void print(PrintStream out, CompletionResult result) {
        result.values().forEach(v -> out.println(SurfaceListing.clean(v, 1_000)));
        List<String> about = new ArrayList<>();
        if (result.values().isEmpty()) {
            about.add("no suggestions");
        }
        result.total().ifPresent(total -> about.add("total " + total));
        if (result.hasMore()) {
            about.add("more available");
        }
        if (!about.isEmpty()) {
            out.println("(" + String.join(", ", about) + ")");
        }
    }
}
