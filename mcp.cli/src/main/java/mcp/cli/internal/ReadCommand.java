package mcp.cli.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import mcp.api.McpException;
import mcp.api.ResourceContents;
import mcp.api.ResourceResult;
import mcp.host.McpHost;
import mcp.cli.internal.SurfaceTargets.Target;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code read}: one resource, text on stdout, binary to a file. */
@Command(name = "read", description = {
    "Read a resource and print its text. Binary contents are never printed: -o FILE saves them (-o - writes the raw"
            + " bytes to stdout).",
    "Without --server, the server is the one that lists the URI, else the one with a resource template that matches"
            + " it. Exit 1 when the read fails (a resource over the size limit too)."})
final class ReadCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Parameters(index = "0", paramLabel = "URI", description = "The resource, e.g. file:///project/README.md.")
    String uri;

    @Option(names = "--server", paramLabel = "NAME", description = "Read from this server (connect only it).")
    String server;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "Write the contents (every one, in order: text in UTF-8, binary decoded) to FILE; - for stdout.")
    String output;

    @Option(names = "--max-bytes", paramLabel = "N",
            description = "Fail a read whose contents are larger than N bytes once decoded (default: 16 MiB).")
    Long maxBytes;

    @Override
    public Integer call() {
        CliContext context = root.context();
        if (maxBytes != null && maxBytes < 0) {
            throw CliException.usage("--max-bytes must not be negative");
        }
        if (output != null && context.json()) {
            throw CliException.usage("--json prints the MCP result; -o writes the contents: give one of them");
        }
        McpHost.Builder builder = context.hostBuilder();
        if (maxBytes != null) {
            // The client refuses a larger result before decoding it; the shell's servers keep their own limit,
            // so the size is checked here too.
            builder.clientSettings(options -> options.maxResourceBytes(maxBytes));
        }
        try (Loaded loaded = context.load(server, builder)) {
            Target target = SurfaceTargets.resource(loaded, uri, server, "resources", false);
            ResourceResult result = SurfaceListing.await(loaded, target.server(), target.client().readResource(uri));
            if (maxBytes != null && result.size() > maxBytes) {
                throw new CliException(ExitCodes.FAILURE, "MCP server \"" + target.server() + "\": resource "
                        + SurfaceListing.clean(uri, 200) + " is " + result.size() + " bytes, over the limit of "
                        + maxBytes + " bytes (--max-bytes); not read");
            }
            if (context.json()) {
                context.printJson(result.raw());
            } else if (output != null) {
                write(context, result.contents());
            } else {
                print(context.out(), result.contents());
            }
        }
        return ExitCodes.OK;
    }

    /** Every content's bytes, in order, to the file or, with {@code -}, to stdout as they are. */
    private void write(CliContext context, List<ResourceContents> contents) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            for (ResourceContents content : contents) {
                bytes.writeBytes(content.bytes());
            }
        } catch (McpException e) {
            throw new CliException(ExitCodes.FAILURE, e.getMessage());
        }
        if (output.equals("-")) {
            context.out().write(bytes.toByteArray(), 0, bytes.size());
            context.out().flush();
            return;
        }
        Path file = context.workingDirectory().resolve(output);
        try {
            Files.write(file, bytes.toByteArray());
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILURE, "cannot write " + file + ": " + e.getMessage());
        }
        context.err().println("Wrote " + bytes.size() + " bytes to " + file
                + (contents.size() == 1 ? "" : " (" + contents.size() + " contents, one after another)"));
    }

    /** Text as it is; a binary content as one line that says how to save it. Several contents each get a heading. */
    private static void print(PrintStream out, List<ResourceContents> contents) {
        if (contents.isEmpty()) {
            out.println("(no contents)");
        }
        for (ResourceContents content : contents) {
            String mime = content.mimeType().map(m -> SurfaceListing.clean(m, 100)).orElse("no MIME type");
            if (contents.size() > 1) {
                out.println("── " + SurfaceListing.clean(content.uri(), 200) + " (" + mime + ")");
            }
            if (content.text().isPresent()) {
                String text = content.text().get();
                out.print(text.endsWith("\n") ? text : text + System.lineSeparator());
            } else if (content.blob().isPresent()) {
                out.println("[binary: " + SurfaceListing.clean(content.uri(), 200) + ", " + mime + ", "
                        + content.size() + " bytes; not shown: -o FILE saves it, -o - writes the raw bytes to stdout]");
            } else {
                out.println("[" + SurfaceListing.clean(content.uri(), 200) + ": neither text nor blob]");
            }
        }
    }
}
