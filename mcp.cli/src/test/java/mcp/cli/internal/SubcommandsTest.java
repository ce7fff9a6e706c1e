package mcp.cli.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Which subcommands a line's command line is given: the one it names, else every one. */
class SubcommandsTest {

    private static Set<String> added(String... args) {
        CliIo io = new CliIo(new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()),
                Map.of(), Path.of(""), Path.of(""), new ByteArrayInputStream(new byte[0]), false);
        CommandLine line = new CommandLine(new McpHostCommand(io, null));
        McpHostCommand.addSubcommands(line, args);
        return new TreeSet<>(line.getSubcommands().keySet());
    }

    @Test
    void aLineThatNamesASubcommandGetsThatOneOnly() {
        assertEquals(Set.of("tools"), added("tools", "--json"));
        assertEquals(Set.of("serve"), added("-C", "/tmp/x", "--gate", "100", "serve", "--stdio"));
        assertEquals(Set.of("tools"), added("--config", "list", "tools"), "an option's value is not a subcommand");
        assertEquals(Set.of("tools"), added("--config=list", "tools"));
        assertEquals(Set.of("call"), added("--json", "call", "server/tool", "{}"));
    }

    @Test
    void helpUsageAndUnknownWordsGetEverySubcommand() {
        int all = McpHostCommand.SUBCOMMANDS.size();
        assertEquals(all, added().size());
        assertEquals(all, added("--help").size());
        assertEquals(all, added("--version").size());
        assertEquals(all, added("help", "tools").size(), "help may name any of them");
        assertEquals(all, added("tols").size(), "a misspelt one gets its suggestions from all of them");
        assertEquals(all, added("--", "tools").size());
    }
}
