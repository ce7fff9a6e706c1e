package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link Sandbox}: which rules bubblewrap can enforce, and how two sets of rules combine. */
class SandboxTest {

    private static Sandbox network(List<String> allowed, List<String> denied) {
        return new Sandbox(Sandbox.Filesystem.NONE, new Sandbox.Network(allowed, denied));
    }

    private static Sandbox paths(List<String> allowWrite, List<String> denyRead, List<String> denyWrite) {
        return new Sandbox(new Sandbox.Filesystem(allowWrite, denyRead, denyWrite), Sandbox.Network.NONE);
    }

    @Test
    void noNetworkAndTheWholeNetworkCanBeEnforced() {
        assertEquals(Optional.empty(), Sandbox.DEFAULT.unenforceable());
        assertEquals(Optional.empty(), network(List.of("*"), List.of()).unenforceable());
        assertTrue(network(List.of("*"), List.of()).network().any());
        assertFalse(Sandbox.DEFAULT.network().any());
        // Denied domains without any network are already denied.
        assertEquals(Optional.empty(), network(List.of(), List.of("evil.example.com")).unenforceable());
    }

    @Test
    void particularDomainsCannotBeEnforcedAndSayWhy() {
        String reason = network(List.of("api.example.com", "*.cdn.example.com"), List.of()).unenforceable()
                .orElseThrow();
        assertTrue(reason.contains("[api.example.com, *.cdn.example.com]"), reason);
        assertTrue(reason.contains("all or nothing"), reason);
        assertTrue(network(List.of("*"), List.of("evil.example.com")).unenforceable().orElseThrow()
                .contains("deniedDomains [evil.example.com]"));
    }

    @Test
    void patternsAndEmptyPathsCannotBeEnforcedButADirectoryWithSlashStarStarCan() {
        assertEquals(Optional.empty(), paths(List.of("/work/**", "~/.npm", "."), List.of("/home/u/.ssh/"),
                List.of("/work/.git/hooks")).unenforceable());
        String reason = paths(List.of("/work/*.log"), List.of(""), List.of("/work/[ab]")).unenforceable().orElseThrow();
        assertTrue(reason.contains("filesystem.allowWrite \"/work/*.log\" is a pattern"), reason);
        assertTrue(reason.contains("filesystem.denyRead has an empty path"), reason);
        assertTrue(reason.contains("filesystem.denyWrite \"/work/[ab]\" is a pattern"), reason);
    }

    @Test
    void directoryOfDropsATrailingSlashStarStarAndSlashes() {
        assertEquals("/work", Sandbox.directoryOf("/work/**"));
        assertEquals("/work", Sandbox.directoryOf("/work///"));
        assertEquals("/", Sandbox.directoryOf("/**"));
        assertEquals("/", Sandbox.directoryOf("/"));
        assertEquals("~/.npm", Sandbox.directoryOf("~/.npm"));
    }

    @Test
    void withKeepsBothListsInOrderWithoutRepeatsAndTheFirstProgram() {
        Sandbox first = paths(List.of(".", "~/.npm"), List.of("~/.ssh"), List.of()).withBubblewrap("/usr/bin/bwrap");
        Sandbox second = new Sandbox(new Sandbox.Filesystem(List.of("~/.npm", "/data"), List.of(), List.of("./x")),
                Sandbox.Network.ANY, Optional.of("/opt/bwrap"));

        Sandbox both = first.with(second);

        assertEquals(List.of(".", "~/.npm", "/data"), both.filesystem().allowWrite());
        assertEquals(List.of("~/.ssh"), both.filesystem().denyRead());
        assertEquals(List.of("./x"), both.filesystem().denyWrite());
        assertEquals(List.of("*"), both.network().allowedDomains());
        assertEquals(Optional.of("/usr/bin/bwrap"), both.bubblewrap());
        assertEquals(Optional.of("/opt/bwrap"), Sandbox.DEFAULT.with(second).bubblewrap());
    }
}
