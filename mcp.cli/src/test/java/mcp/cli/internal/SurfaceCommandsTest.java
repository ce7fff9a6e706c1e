package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import mcp.api.McpJson;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code resources}, {@code read}, {@code prompts}, {@code prompt} and {@code complete}, and their shell lines,
 * against testkit servers with {@code --features prompts,resources,completions} in both eras: the 2025 handshake
 * ({@code legacy}) and the stateless 2026-07-28 revision ({@code modern}).
 */
class SurfaceCommandsTest {

    private static final int BLOB_BYTES = 3000;

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    private CliRunner cli;

    @BeforeEach
    void fixture() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        cli = new CliRunner(project, home);
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        CliRunner.assertNoChildProcessLeft();
    }

    /** A config of these servers: each a name, then its testkit options. */
    private Path config(String file, Object... servers) throws IOException {
        ObjectNode entries = McpJson.object();
        for (int i = 0; i < servers.length; i += 2) {
            List<String> command = TestServers.command((String[]) servers[i + 1]);
            ObjectNode entry = entries.putObject((String) servers[i]);
            entry.put("command", command.get(0));
            ArrayNode args = entry.putArray("args");
            command.subList(1, command.size()).forEach(args::add);
        }
        ObjectNode root = McpJson.object();
        root.set("mcpServers", entries);
        Path config = temp.resolve(file);
        Files.writeString(config, root.toString());
        return config;
    }

    private static String[] kit(String era) {
        return new String[] {"--era", era, "--features", "prompts,resources,completions",
            "--blob-bytes", Integer.toString(BLOB_BYTES)};
    }

    /** {@code kit} with every feature, {@code plain} with none. */
    private Path kitAndPlain(String era) throws IOException {
        return config("servers.json", "kit", kit(era), "plain", new String[] {"--era", era});
    }

    private CliRunner.Result run(Path config, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--config", config.toString(), "--no-cache"));
        return cli.run(all.toArray(String[]::new));
    }

    private static byte[] blob() {
        byte[] bytes = new byte[BLOB_BYTES];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void resourcesListsResourcesAndTemplatesByServerAndSkipsServersWithout(String era) throws IOException {
        Path config = kitAndPlain(era);
        CliRunner.Result json = run(config, "resources", "--json");
        assertEquals(0, json.exitCode(), json::toString);
        JsonNode document = json.json();
        assertEquals(2, document.get("resources").size(), json::toString);
        JsonNode readme = document.at("/resources/0");
        assertEquals("kit", readme.get("server").asString());
        assertEquals("test://text/readme", readme.get("uri").asString());
        assertEquals("readme", readme.get("name").asString());
        assertEquals("text/plain", readme.get("mimeType").asString());
        assertFalse(readme.has("size"), "no size when the server gives none: " + readme);
        JsonNode data = document.at("/resources/1");
        assertEquals("test://blob/data", data.get("uri").asString());
        assertEquals(BLOB_BYTES, data.get("size").asInt());
        JsonNode template = document.at("/templates/0");
        assertEquals("kit", template.get("server").asString());
        assertEquals("test://items/{id}", template.get("uriTemplate").asString());
        assertEquals("An item by its id.", template.get("description").asString());
        assertEquals(1, document.get("templates").size());
        assertTrue(document.get("errors").isEmpty(), json::toString);
        assertEquals("no resources capability", document.at("/skipped/plain").asString(), json::toString);

        CliRunner.Result text = run(config, "resources");
        assertEquals(0, text.exitCode(), text::toString);
        List<String> lines = text.out().lines().toList();
        assertEquals("kit (2 resources, 1 template)", lines.get(0), text::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  test://blob/data ") && l.contains("data")
                && l.contains("(application/octet-stream, " + BLOB_BYTES + " bytes)")), text::toString);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  test://items/{id} ")
                && l.endsWith("— An item by its id.")), text::toString);
        assertFalse(text.out().lines().anyMatch(l -> l.startsWith("plain")),
                "a server without resources is left out quietly: " + text);
        assertEquals("", text.err(), text::toString);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void readPrintsTextFindsTheServerByListingOrTemplateAndSavesBlobs(String era) throws IOException {
        Path config = kitAndPlain(era);
        CliRunner.Result text = run(config, "read", "test://text/readme");
        assertEquals(0, text.exitCode(), text::toString);
        assertEquals("The testkit's readme.\n", text.out());

        CliRunner.Result templated = run(config, "read", "test://items/42");
        assertEquals(0, templated.exitCode(), templated::toString);
        assertEquals("item 42\n", templated.out());

        CliRunner.Result described = run(config, "read", "test://blob/data");
        assertEquals(0, described.exitCode(), described::toString);
        assertEquals(1, described.out().lines().count(), described::toString);
        assertTrue(described.out().startsWith("[binary: test://blob/data, application/octet-stream, " + BLOB_BYTES
                + " bytes; not shown: -o FILE saves it"), described::toString);

        CliRunner.Result saved = run(config, "read", "test://blob/data", "-o", "data.bin");
        assertEquals(0, saved.exitCode(), saved::toString);
        assertArrayEquals(blob(), Files.readAllBytes(project.resolve("data.bin")), "written relative to -C");
        assertTrue(saved.err().contains("Wrote " + BLOB_BYTES + " bytes to "), saved::toString);

        CliRunner.Result raw = run(config, "read", "--server", "kit", "test://blob/data", "-o", "-");
        assertEquals(0, raw.exitCode(), raw::toString);
        assertArrayEquals(blob(), raw.outBytes());

        CliRunner.Result json = run(config, "read", "--json", "test://items/7");
        assertEquals(0, json.exitCode(), json::toString);
        assertEquals("item 7", json.json().at("/contents/0/text").asString());
        assertEquals("test://items/7", json.json().at("/contents/0/uri").asString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void aReadOverTheLimitFailsWithExitOneAndTheShellCarriesOn(String era) throws IOException {
        Path config = kitAndPlain(era);
        CliRunner.Result over = run(config, "read", "--max-bytes", "100", "test://blob/data", "-o", "x.bin");
        assertEquals(1, over.exitCode(), over::toString);
        assertTrue(over.err().contains("resource test://blob/data is " + BLOB_BYTES
                + " bytes, over the limit of 100 bytes"), over::toString);
        assertFalse(Files.exists(project.resolve("x.bin")));

        CliRunner.Result under = run(config, "read", "--max-bytes", Integer.toString(BLOB_BYTES), "test://blob/data",
                "-o", "x.bin");
        assertEquals(0, under.exitCode(), under::toString);

        String input = String.join("\n",
                "/read --max-bytes 100 test://blob/data",
                "/read test://text/readme",
                "/read test://nowhere/at/all") + "\n";
        CliRunner.Result shell = cli.runWithInput(input, "shell", "--config", config.toString(), "--no-cache");
        assertEquals(0, shell.exitCode(), shell::toString);
        assertTrue(shell.err().contains("over the limit of 100 bytes (--max-bytes)"), shell::toString);
        assertTrue(shell.out().lines().anyMatch(l -> l.equals("The testkit's readme.")), shell::toString);
        assertTrue(shell.err().contains("No server lists the resource test://nowhere/at/all or has a template"
                + " that matches it."), shell::toString);
    }

    @Test
    void aUriOrPromptOfSeveralServersIsAnErrorNamingThem() throws IOException {
        Path config = config("two.json", "kit", kit("legacy"), "kat", kit("modern"));
        CliRunner.Result read = run(config, "read", "test://text/readme");
        assertEquals(2, read.exitCode(), read::toString);
        assertTrue(read.err().contains("Several servers have the resource test://text/readme: kit, kat."),
                read::toString);

        CliRunner.Result prompt = run(config, "prompt", "greet", "{\"name\": \"Ada\"}");
        assertEquals(2, prompt.exitCode(), prompt::toString);
        assertTrue(prompt.err().contains("Several servers have a prompt \"greet\": kit:greet, kat:greet."),
                prompt::toString);

        CliRunner.Result named = run(config, "prompt", "kat:greet", "{\"name\": \"Ada\"}");
        assertEquals(0, named.exitCode(), named::toString);
        assertTrue(named.out().contains("Greet Ada in a plain style."), named::toString);

        CliRunner.Result complete = run(config, "complete", "--resource", "test://items/{id}", "id", "4");
        assertEquals(2, complete.exitCode(), complete::toString);
        assertTrue(complete.err().contains("Several servers have the resource template test://items/{id}: kit, kat."),
                complete::toString);
        CliRunner.Result one = run(config, "complete", "--server", "kat", "--resource", "test://items/{id}", "id", "4");
        assertEquals(0, one.exitCode(), one::toString);
        assertEquals("42\n(total 1)\n", one.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void promptsListsArgumentsAndPromptPrintsTheMessages(String era) throws IOException {
        Path config = kitAndPlain(era);
        CliRunner.Result list = run(config, "prompts");
        assertEquals(0, list.exitCode(), list::toString);
        assertTrue(list.out().lines().anyMatch(l -> l.startsWith("kit:greet (name*, style)") && l.endsWith("— Greeting")),
                list::toString);
        assertTrue(list.out().lines().anyMatch(l -> l.startsWith("kit:hello ") && l.endsWith("— Says hello.")),
                list::toString);

        CliRunner.Result json = run(config, "prompts", "--json");
        assertEquals(0, json.exitCode(), json::toString);
        JsonNode greet = json.json().at("/prompts/1");
        assertEquals("kit", greet.get("server").asString());
        assertEquals("greet", greet.get("name").asString());
        assertEquals("Greeting", greet.get("title").asString());
        assertEquals("name", greet.at("/arguments/0/name").asString());
        assertTrue(greet.at("/arguments/0/required").asBoolean());
        assertFalse(greet.at("/arguments/1/required").asBoolean());
        assertEquals("no prompts capability", json.json().at("/skipped/plain").asString(), json::toString);

        CliRunner.Result prompt = run(config, "prompt", "greet", "{\"name\": \"Ada\", \"style\": \"formal\"}");
        assertEquals(0, prompt.exitCode(), prompt::toString);
        assertEquals("[user]\nGreet Ada in a formal style.\n", prompt.out());

        CliRunner.Result raw = run(config, "prompt", "--json", "kit:hello");
        assertEquals(0, raw.exitCode(), raw::toString);
        assertEquals("The hello prompt", raw.json().get("description").asString());
        assertEquals("Hello from the testkit.", raw.json().at("/messages/0/content/text").asString());

        CliRunner.Result refused = run(config, "prompt", "greet");
        assertEquals(1, refused.exitCode(), refused::toString);
        assertTrue(refused.err().contains("Missing required argument: name"), refused::toString);

        CliRunner.Result unknown = run(config, "prompt", "gret");
        assertEquals(2, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("No server has a prompt \"gret\"."), unknown::toString);
        assertTrue(unknown.err().contains("Did you mean: kit:greet?"), unknown::toString);
    }

    @Test
    void promptArgumentsMustBeAJsonObjectOfStringsAndNothingStartsOtherwise() throws IOException {
        Path config = kitAndPlain("legacy");
        CliRunner.Result number = run(config, "prompt", "kit:greet", "{\"name\": 42}");
        assertEquals(2, number.exitCode(), number::toString);
        assertTrue(number.err().contains("prompt arguments are strings, and \"name\" is 42"), number::toString);
        CliRunner.Result array = run(config, "prompt", "kit:greet", "[1]");
        assertEquals(2, array.exitCode(), array::toString);
        assertTrue(array.err().contains("ARGS_JSON must be a JSON object"), array::toString);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void completePrintsTheValuesOfPromptAndTemplateArguments(String era) throws IOException {
        Path config = kitAndPlain(era);
        CliRunner.Result style = run(config, "complete", "--prompt", "greet", "style", "f");
        assertEquals(0, style.exitCode(), style::toString);
        assertEquals("formal\nfriendly\nfunny\n(total 3)\n", style.out());

        CliRunner.Result withContext = run(config, "complete", "--prompt", "kit:greet", "name", "A",
                "--context", "style=formal");
        assertEquals(0, withContext.exitCode(), withContext::toString);
        assertEquals("Dr. Ada\nDr. Alan\n(total 2)\n", withContext.out());

        CliRunner.Result template = run(config, "complete", "--json", "--resource", "test://items/{id}", "id");
        assertEquals(0, template.exitCode(), template::toString);
        JsonNode values = template.json().at("/completion/values");
        assertEquals(List.of("1", "2", "3", "42"), McpJson.mapper().convertValue(values, List.class));

        CliRunner.Result none = run(config, "complete", "--prompt", "greet", "style", "x");
        assertEquals(0, none.exitCode(), none::toString);
        assertEquals("(no suggestions, total 0)\n", none.out());

        CliRunner.Result both = run(config, "complete", "--prompt", "greet", "--resource", "test://items/{id}", "id");
        assertEquals(2, both.exitCode(), both::toString);
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void theShellHasEveryCommandOnItsOwnServers(String era) throws IOException {
        Path config = kitAndPlain(era);
        String input = String.join("\n",
                "/resources",
                "/read test://items/3",
                "/read test://blob/data -o shell.bin",
                "/prompts",
                "/prompt kit:greet {\"name\": \"Grace\", \"style\": \"funny\"}",
                "/complete --prompt greet style fr",
                "/complete --prompt nothing-like-it x",
                "/prompts --server plain") + "\n";
        CliRunner.Result result = cli.runWithInput(input, "shell", "--config", config.toString(), "--no-cache");
        assertEquals(0, result.exitCode(), result::toString);
        List<String> lines = result.out().lines().toList();
        assertTrue(lines.contains("kit (2 resources, 1 template)"), result::toString);
        assertTrue(lines.contains("item 3"), result::toString);
        assertArrayEquals(blob(), Files.readAllBytes(project.resolve("shell.bin")));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kit:greet (name*, style)")), result::toString);
        assertTrue(lines.contains("Greet Grace in a funny style."), result::toString);
        assertTrue(lines.contains("friendly"), result::toString);
        assertTrue(result.err().contains("No server has a prompt \"nothing-like-it\"."), result::toString);
        assertTrue(lines.contains("No server offers prompts."), result::toString);
    }
}
