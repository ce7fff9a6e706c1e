package mcp.cli.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import mcp.api.McpJson;
import mcp.api.spi.ElicitationUi;
import mcp.manager.ElicitationForm;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shell's elicitation UI, on its own terminal: a form asks one line per field (defaults in brackets, a
 * value that does not fit asked again with the reason; {@code :decline} or {@code :cancel} on any line ends the
 * form so), then shows the answers for a last yes/no; a URL is opened only after the user agreed, on a question
 * that names the server and the URL's host, and then the full URL is printed and given to the browser. End of
 * input cancels. Requests from several servers are asked one after the other.
 */
final class ShellElicitation implements ElicitationUi {

    /** The id of this UI. */
    static final String ID = "terminal";

    private final BufferedReader in;
    private final PrintStream out;
    private final Function<URI, Optional<String>> browser;

    /**
     * @param in the shell's input
     * @param out the shell's output
     * @param browser opens a URL without blocking; returns why it could not
     */
    ShellElicitation(BufferedReader in, PrintStream out, Function<URI, Optional<String>> browser) {
        this.in = in;
        this.out = out;
        this.browser = browser;
    }

    @Override
    public String id() {
        return ID;
    }

    /** The user chose to leave the form. */
    private static final class Leave extends Exception {
        private static final long serialVersionUID = 1L;
        final transient Response response;

        Leave(Response response) {
            super(null, null, false, false);
            this.response = response;
        }
    }

    @Override
    public synchronized Response form(FormRequest request) {
        ElicitationForm form = ElicitationForm.of(request.requestedSchema());
        out.println();
        out.println("MCP server \"" + request.serverName() + "\" asks: " + request.message());
        out.println("(Enter keeps the value in brackets; :decline or :cancel on any line.)");
        try {
            while (true) {
                ObjectNode content = McpJson.object();
                for (ElicitationForm.Field field : form.fields()) {
                    ask(field).ifPresent(value -> content.set(field.name(), value));
                }
                out.println("Your answers:");
                content.properties().forEach(entry -> out.println("    " + entry.getKey() + " = " + entry.getValue()));
                String answer = line("Send them to " + request.serverName() + "? [y]es / [e]dit / [d]ecline / [c]ancel: ");
                switch (answer.toLowerCase(Locale.ROOT)) {
                    case "y", "yes", "" -> {
                        return Response.accept(content);
                    }
                    case "d", "decline", ":decline" -> {
                        return Response.decline();
                    }
                    case "c", "cancel", ":cancel" -> {
                        return Response.cancel();
                    }
                    default -> out.println("Again, then.");
                }
            }
        } catch (Leave leave) {
            return leave.response;
        }
    }

    private Optional<JsonNode> ask(ElicitationForm.Field field) throws Leave {
        StringBuilder prompt = new StringBuilder(field.label());
        if (!field.description().isEmpty()) {
            prompt.append(" (").append(field.description()).append(')');
        }
        if (!field.choices().isEmpty()) {
            out.println(field.label() + (field.type() == ElicitationForm.Type.MULTI_CHOICE
                    ? ", one or more, separated by commas:" : ", one of:"));
            for (int i = 0; i < field.choices().size(); i++) {
                ElicitationForm.Choice choice = field.choices().get(i);
                out.println("    " + (i + 1) + ") " + choice.title()
                        + (choice.title().equals(choice.value()) ? "" : " [" + choice.value() + "]"));
            }
        }
        switch (field.type()) {
            case BOOLEAN -> prompt.append(" [y/n]");
            case INTEGER -> prompt.append(" (whole number").append(bounds(field)).append(')');
            case NUMBER -> prompt.append(" (number").append(bounds(field)).append(')');
            case STRING -> {
                if (!field.format().isEmpty()) {
                    prompt.append(" (").append(field.format()).append(')');
                }
            }
            default -> {
            }
        }
        field.defaultValue().ifPresent(value -> prompt.append(" [").append(value.isString() ? value.asString()
                : value.toString()).append(']'));
        prompt.append(field.required() ? " *: " : ": ");
        while (true) {
            String typed = line(prompt.toString());
            try {
                return field.parse(typed);
            } catch (IllegalArgumentException e) {
                out.println("  " + e.getMessage());
            }
        }
    }

    private static String bounds(ElicitationForm.Field field) {
        JsonNode min = field.schema().get("minimum");
        JsonNode max = field.schema().get("maximum");
        return (min == null ? "" : ", at least " + min) + (max == null ? "" : ", at most " + max);
    }

    /** One answer line; {@code :decline}, {@code :cancel} and end of input leave the form. */
    private String line(String prompt) throws Leave {
        out.print(prompt);
        out.flush();
        String line;
        try {
            line = in.readLine();
        } catch (IOException e) {
            line = null;
        }
        if (line == null) {
            out.println();
            throw new Leave(Response.cancel());
        }
        String typed = line.strip();
        if (typed.equals(":decline")) {
            throw new Leave(Response.decline());
        }
        if (typed.equals(":cancel")) {
            throw new Leave(Response.cancel());
        }
        return typed;
    }

    @Override
    public synchronized Response url(UrlRequest request) {
        out.println();
        out.println("MCP server \"" + request.serverName() + "\" asks you to open a page on " + request.url().getHost()
                + ": " + request.message());
        try {
            while (true) {
                String answer = line("Open it in your browser? [y]es / [n]o, decline / [c]ancel: ");
                switch (answer.toLowerCase(Locale.ROOT)) {
                    case "y", "yes" -> {
                        out.println("Opening " + request.url());
                        browser.apply(request.url()).ifPresent(why -> out.println("(" + why
                                + ": open the URL above yourself.)"));
                        return request.callWaits() ? finished() : Response.accept();
                    }
                    case "n", "no", "d", "decline" -> {
                        return Response.decline();
                    }
                    case "c", "cancel" -> {
                        return Response.cancel();
                    }
                    default -> out.println("Please answer y, n or c.");
                }
            }
        } catch (Leave leave) {
            return leave.response;
        }
    }

    /** The call waits for the user to finish on the page: the user says when, and the call is sent again. */
    private Response finished() throws Leave {
        while (true) {
            String answer = line("When you have finished there, press Enter to run the call again, or [c]ancel: ");
            switch (answer.toLowerCase(Locale.ROOT)) {
                case "" -> {
                    return Response.accept();
                }
                case "c", "cancel" -> {
                    return Response.cancel();
                }
                default -> out.println("Please press Enter, or answer c.");
            }
        }
    }

    @Override
    public void completed(String serverName, String elicitationId) {
        out.println();
        out.println("MCP server \"" + serverName + "\": the page you opened is done (" + elicitationId + ").");
    }
}
