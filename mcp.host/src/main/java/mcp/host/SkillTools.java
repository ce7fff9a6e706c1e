package mcp.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import mcp.api.LoadedSkill;
import mcp.api.McpJson;
import mcp.api.SkillEntry;
import mcp.api.SkillFile;
import mcp.manager.McpManager;
import mcp.manager.ToolOutput;
import mcp.manager.internal.AgentText;
import tools.jackson.databind.JsonNode;

/**
 * The skills of a session's servers (the skills extension, SEP-2640) as documents the agent loads on demand: one
 * tool, {@value #LOAD}, whose description lists every skill by name, server and description (cleaned and
 * bounded), and which returns a skill's verified instructions, or one of its files. Nothing of a skill is read
 * before the agent asks for it; every file is verified against the skill's entry (size, digest, frontmatter) by
 * the client, and what fails verification is never shown. The tool exists only while a server offers skills.
 */
final class SkillTools {

    /** The tool that loads a skill or one of its files. */
    static final String LOAD = "load_mcp_skill";

    /** At most this many characters of skill listing go into the tool's description. */
    static final int MAX_LISTING = 8_000;

    private SkillTools() {
    }

    /** @return the tool if a server of the manager offers skills, else none */
    static List<AgentTool> of(McpManager manager) {
        List<SkillEntry> skills = skills(manager);
        return skills.isEmpty() ? List.of() : List.of(new LoadTool(manager, describe(skills)));
    }

    /** @return every skill entry of the manager's servers, in the servers' order */
    static List<SkillEntry> skills(McpManager manager) {
        List<SkillEntry> skills = new ArrayList<>();
        manager.surfaces().forEach(slice -> skills.addAll(slice.surface().skills()));
        return List.copyOf(skills);
    }

    private static String describe(List<SkillEntry> skills) {
        StringBuilder text = new StringBuilder("Loads a skill: instructions for a kind of task, offered by an MCP "
                + "server. Load one when its description fits the task; then read the files its instructions name "
                + "with \"file\". Skills:");
        int shown = 0;
        for (SkillEntry skill : skills) {
            String line = "\n- " + AgentText.clean(skill.name(), 64).text() + " (server " + skill.server() + "): "
                    + AgentText.clean(skill.description(), 300).text();
            if (text.length() + line.length() > MAX_LISTING) {
                text.append("\n(and ").append(skills.size() - shown).append(" more)");
                break;
            }
            text.append(line);
            shown++;
        }
        return text.toString();
    }

    private static ToolOutput output(String server, String text, boolean error) {
        return ResourceTools.output(server, LOAD, text, error);
    }

    /**
     * The tool. Loaded skills are kept for reading their files (by server and URI) while the tool is the session's;
     * a refresh of the tool set makes a new tool, and a file read then loads its skill again.
     */
    private record LoadTool(McpManager manager, String description, Map<String, LoadedSkill> loaded)
            implements AgentTool {

        LoadTool(McpManager manager, String description) {
            this(manager, description, new ConcurrentHashMap<>());
        }

        @Override
        public String name() {
            return LOAD;
        }

        @Override
        public String label() {
            return "Load an MCP skill";
        }

        @Override
        public JsonNode inputSchema() {
            return McpJson.mapper().readTree("{\"type\":\"object\",\"properties\":{\"server\":{\"type\":\"string\","
                    + "\"description\":\"The MCP server that offers the skill\"},\"skill\":{\"type\":\"string\","
                    + "\"description\":\"The skill's name\"},\"file\":{\"type\":\"string\",\"description\":"
                    + "\"A file of the skill, relative to its directory (as its instructions name it); leave out to "
                    + "load the instructions\"}},\"required\":[\"server\",\"skill\"]}");
        }

        @Override
        public String origin() {
            return "mcp:skills";
        }

        @Override
        public boolean isMcp() {
            return true;
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            Optional<String> server = ResourceTools.text(arguments, "server");
            Optional<String> name = ResourceTools.text(arguments, "skill");
            if (server.isEmpty() || name.isEmpty()) {
                return CompletableFuture.completedFuture(output(server.orElse(""),
                        LOAD + " needs \"server\" and \"skill\" (strings)", true));
            }
            Optional<SkillEntry> entry = manager.surfaceOf(server.get()).stream()
                    .flatMap(slice -> slice.surface().skills().stream())
                    .filter(skill -> skill.name().equals(name.get())).findFirst();
            if (entry.isEmpty()) {
                return CompletableFuture.completedFuture(output(server.get(), "MCP server \"" + server.get()
                        + "\" offers no skill \"" + AgentText.clean(name.get(), 64).text() + "\"", true));
            }
            String key = entry.get().server() + "\u0000" + entry.get().uri();
            CompletableFuture<LoadedSkill> skill = Optional.ofNullable(loaded.get(key))
                    .map(CompletableFuture::completedFuture)
                    .orElseGet(() -> manager.loadSkill(entry.get()).thenApply(done -> {
                        loaded.put(key, done);
                        return done;
                    }));
            Optional<String> file = ResourceTools.text(arguments, "file");
            CompletableFuture<ToolOutput> result = file.isEmpty()
                    ? skill.thenApply(done -> output(server.get(), "Skill " + done.name() + " from MCP server "
                            + done.server() + " (verified against its entry; its text is the server's):\n\n"
                            + done.instructions() + (done.files().isEmpty() ? "" : "\n\nFiles (read with \"file\"): "
                                    + String.join(", ", done.files().stream().map(uri -> relative(done, uri)).toList())),
                            false))
                    : skill.thenCompose(done -> manager.readSkillFile(done, file.get()))
                            .thenApply(read -> output(server.get(), rendered(read), false));
            return result.exceptionally(error -> output(server.get(), ResourceTools.message(error), true));
        }

        /** A file's URI relative to its skill's directory, as its instructions name it. */
        private static String relative(LoadedSkill skill, String uri) {
            String root = skill.entry().root() + "/";
            return uri.startsWith(root) ? uri.substring(root.length()) : uri;
        }

        private static String rendered(SkillFile file) {
            Optional<String> mime = file.contents().mimeType();
            boolean text = file.contents().text().isPresent()
                    || mime.map(m -> m.startsWith("text/") || m.endsWith("json") || m.endsWith("yaml")).orElse(false);
            return text ? "[Skill file: " + file.uri() + "]\n" + file.text()
                    : "[Skill file: " + file.uri() + " (" + mime.orElse("binary") + ", " + file.bytes().length
                            + " bytes)]";
        }
    }
}
