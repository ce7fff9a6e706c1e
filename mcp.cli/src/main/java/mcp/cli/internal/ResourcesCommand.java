package mcp.cli.internal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import mcp.api.McpJson;
import mcp.api.ResourceDefinition;
import mcp.api.ResourceTemplate;
import mcp.cli.internal.SurfaceTargets.ResourceListing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code resources}: every connected server's resources and resource templates. */
@Command(name = "resources", description = {
    "Connect the servers and list their resources and resource templates, by server.",
    "Servers without the resources capability are left out. Per-server errors are reported and do not change the"
            + " exit code."})
final class ResourcesCommand implements Callable<Integer> {

    @ParentCommand
    McpHostCommand root;

    @Option(names = "--server", paramLabel = "NAME", description = "Connect and list only this server.")
    String server;

    @Override
    public Integer call() {
        return SurfaceListing.list(root.context(), server, "resources", ResourceListing::of, ResourcesCommand::json,
                (context, listed) -> {
                    print(context.out(), listed.answers());
                    // A server that listed its resources but not its templates: its resources, and the error.
                    listed.answers().forEach((name, listing) -> listing.templatesError()
                            .ifPresent(error -> context.err().println("error: " + name + ": " + error)));
                });
    }

    /**
     * {@code {"resources": [...], "templates": [...], "errors": {server: message}}} ({@link SurfaceListing#list} adds
     * the servers that failed and {@code skipped}); a server that listed its resources but not its templates has both
     * its resources and an error.
     */
    private static ObjectNode json(SurfaceListing.Answers<ResourceListing> listed) {
        ObjectNode document = McpJson.object();
        ArrayNode resources = document.putArray("resources");
        ArrayNode templates = document.putArray("templates");
        ObjectNode errors = document.putObject("errors");
        listed.answers().forEach((name, listing) -> {
            for (ResourceDefinition resource : listing.resources()) {
                ObjectNode node = resources.addObject().put("server", name).put("uri", resource.uri())
                        .put("name", resource.name());
                described(node, resource.title(), resource.description(), resource.mimeType());
                resource.size().ifPresent(size -> node.put("size", size));
            }
            for (ResourceTemplate template : listing.templates()) {
                ObjectNode node = templates.addObject().put("server", name).put("uriTemplate", template.uriTemplate())
                        .put("name", template.name());
                described(node, template.title(), template.description(), template.mimeType());
            }
            listing.templatesError().ifPresent(error -> errors.put(name, error));
        });
        return document;
    }

    private static void described(ObjectNode node, Optional<String> title, Optional<String> description,
            Optional<String> mimeType) {
        title.ifPresent(t -> node.put("title", t));
        description.ifPresent(d -> node.put("description", d));
        mimeType.ifPresent(m -> node.put("mimeType", m));
    }

    private static void print(PrintStream out, Map<String, ResourceListing> listings) {
        if (listings.isEmpty()) {
            out.println("No server offers resources.");
            return;
        }
        listings.forEach((name, listing) -> {
            out.println(SurfaceListing.clean(name, 200) + " (" + count(listing.resources().size(), "resource") + ", "
                    + count(listing.templates().size(), "template") + ")");
            int width = Math.max(
                    listing.resources().stream().mapToInt(r -> shown(r.uri()).length()).max().orElse(0),
                    listing.templates().stream().mapToInt(t -> shown(t.uriTemplate()).length()).max().orElse(0));
            for (ResourceDefinition resource : listing.resources()) {
                out.println(line(width, resource.uri(), resource.name(), resource.title(), resource.description(),
                        resource.mimeType(), resource.size()));
            }
            for (ResourceTemplate template : listing.templates()) {
                out.println(line(width, template.uriTemplate(), template.name(), template.title(),
                        template.description(), template.mimeType(), OptionalLong.empty()));
            }
        });
    }

    /** {@code   URI  name  (mime, N bytes)  — title or description}, each part cleaned and cut short. */
    private static String line(int width, String uri, String name, Optional<String> title,
            Optional<String> description, Optional<String> mimeType, OptionalLong size) {
        StringBuilder line = new StringBuilder("  ").append(ToolsCommand.pad(shown(uri), width)).append("  ")
                .append(SurfaceListing.clean(name, 60));
        List<String> details = new ArrayList<>();
        mimeType.ifPresent(m -> details.add(SurfaceListing.clean(m, 60)));
        size.ifPresent(bytes -> details.add(bytes + " bytes"));
        if (!details.isEmpty()) {
            line.append("  (").append(String.join(", ", details)).append(')');
        }
        Optional<String> about = title.filter(t -> !t.equals(name)).or(() -> description);
        about.map(text -> ToolsCommand.firstLine(SurfaceListing.clean(text, 2_000))).filter(text -> !text.isEmpty())
                .ifPresent(text -> line.append("  — ").append(text));
        return line.toString();
    }

    private static String shown(String uri) {
        return SurfaceListing.clean(uri, 200);
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }
}
