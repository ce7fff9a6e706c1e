package mcp.manager.internal;

import java.util.ArrayList;
import java.util.List;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.PromptResult;
import mcp.api.ResourceContents;
import mcp.api.ResourceResult;
import mcp.api.ToolResult;
import mcp.manager.ToolOutput;

/**
 * Renders a tool result as text for the agent (SPEC §9): text as is; {@code [Image: <mime>]}, with
 * {@code , <width>x<height>, about <n> tokens} when the image's header gives its size ({@link ImageSize});
 * {@code [Audio: <mime>]}; {@code [Resource: <uri>]} and its text; {@code [Resource link: <uri>]};
 * items joined by a blank line; {@code Error: } before an error result. A result with structured
 * content and no content items shows the structured content as JSON, so the agent sees something.
 */
public final class ResultRenderer {

    private ResultRenderer() {
    }

    /**
     * @param result the MCP result
     * @param details the details to attach
     * @return the output
     */
    public static ToolOutput render(ToolResult result, ToolOutput.Details details) {
        return render(result, details, Integer.MAX_VALUE);
    }

    /**
     * @param result the MCP result
     * @param details the details to attach
     * @param largeMedia an image or audio item whose data (base64) is longer than this is shown with its size and
     *     that it passes as an item: {@code [Image: <mime>, <n> bytes, passed as an image item, not as text]} (after
     *     the image's pixel size and tokens, when known)
     * @return the output
     */
    public static ToolOutput render(ToolResult result, ToolOutput.Details details, int largeMedia) {
        List<String> parts = new ArrayList<>();
        for (Content item : result.content()) {
            String data = item instanceof Content.Image image ? image.data()
                    : item instanceof Content.Audio audio ? audio.data() : null;
            String shown = render(item);
            if (data != null && data.length() > largeMedia) {
                String kind = item instanceof Content.Image ? "image" : "audio";
                shown = shown.substring(0, shown.length() - 1) + ", "
                        + String.format(java.util.Locale.ROOT, "%,d", decodedSize(data)) + " bytes, passed as an "
                        + kind + " item, not as text]";
            }
            parts.add(shown);
        }
        if (parts.isEmpty() && result.structuredContent().isPresent()) {
            parts.add(McpJson.mapper().writeValueAsString(result.structuredContent().get()));
        }
        String text = String.join("\n\n", parts);
        return new ToolOutput(result.isError() ? "Error: " + text : text, result.isError(), details);
    }

    /**
     * A resource read as the agent sees it: each item as an embedded resource is ({@code [Resource: <uri>]} and its
     * text), binary contents as {@code [Resource: <uri> (<mime>, <n> bytes)]}; the items themselves are in the
     * details.
     *
     * @param result the read's result
     * @param details the details to attach (their content is replaced by the items)
     * @return the output
     */
    public static ToolOutput render(ResourceResult result, ToolOutput.Details details) {
        List<String> parts = new ArrayList<>();
        List<Content> items = new ArrayList<>();
        for (ResourceContents contents : result.contents()) {
            items.add(new Content.EmbeddedResource(contents));
            parts.add(contents.text().isPresent() ? render(items.get(items.size() - 1))
                    : "[Resource: " + contents.uri() + " (" + contents.mimeType().orElse("binary") + ", "
                            + contents.size() + " bytes)]");
        }
        String text = parts.isEmpty() ? "(the resource is empty)" : String.join("\n\n", parts);
        return new ToolOutput(text, false, withContent(details, items));
    }

    /**
     * A prompt's messages as the agent sees them: each as {@code <role>: } and its content rendered as a tool
     * result's is, after the prompt's description if it has one; the contents are in the details.
     *
     * @param result the prompt's result
     * @param details the details to attach (their content is replaced by the messages' contents)
     * @return the output
     */
    public static ToolOutput render(PromptResult result, ToolOutput.Details details) {
        List<String> parts = new ArrayList<>();
        List<Content> items = new ArrayList<>();
        result.description().ifPresent(parts::add);
        for (PromptResult.Message message : result.messages()) {
            items.add(message.content());
            parts.add(message.role() + ": " + render(message.content()));
        }
        return new ToolOutput(String.join("\n\n", parts), false, withContent(details, items));
    }

    /** @return the bytes of base64 data (without line breaks), counted without decoding */
    static long decodedSize(String base64) {
        int length = base64.length();
        int padding = length > 0 && base64.charAt(length - 1) == '=' ? (length > 1 && base64.charAt(length - 2) == '='
                ? 2 : 1) : 0;
        return (long) length / 4 * 3 + (length % 4 == 0 ? 0 : length % 4 - 1) - padding;
    }

    private static ToolOutput.Details withContent(ToolOutput.Details details, List<Content> items) {
        return new ToolOutput.Details(details.serverName(), details.toolName(), details.isError(), items,
                details.structuredContent(), details.providerId(), details.providerName());
    }

    /**
     * @param item one content item
     * @return it as the agent sees it in a tool result (prompt messages are shown the same way)
     */
    public static String render(Content item) {
        if (item instanceof Content.Text text) {
            return text.text();
        } else if (item instanceof Content.Image image) {
            // So the agent knows what the image costs it: the size from the header, and the tokens it comes to.
            return "[Image: " + image.mimeType() + ImageSize.ofBase64(image.data()).map(size -> ", " + size.describe())
                    .orElse("") + "]";
        } else if (item instanceof Content.Audio audio) {
            return "[Audio: " + audio.mimeType() + "]";
        } else if (item instanceof Content.EmbeddedResource resource) {
            String head = "[Resource: " + resource.resource().uri() + "]";
            return resource.resource().text().map(t -> head + "\n" + t).orElse(head);
        } else if (item instanceof Content.ResourceLink link) {
            return "[Resource link: " + link.uri() + "]";
        } else {
            return "[Unsupported content: " + ((Content.Unknown) item).type() + "]";
        }
    }
}
