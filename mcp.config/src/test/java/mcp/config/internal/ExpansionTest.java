package mcp.config.internal;

import static mcp.config.internal.ValidationTest.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerSpec;
import org.junit.jupiter.api.Test;

/** {@code ${VAR}} expansion of single values and of every expandable field. */
class ExpansionTest {

    private static final Map<String, String> ENV = Map.of("HOME", "/home/me", "EMPTY", "", "TOKEN", "secret",
            "REF", "${HOME}");

    @Test
    void setVariablesAreReplaced() {
        assertExpands("/home/me/bin", "${HOME}/bin");
        assertExpands("a/home/me-b-secret", "a${HOME}-b-${TOKEN}");
        assertExpands("/home/me", "${HOME:-/fallback}");
    }

    @Test
    void defaultsApplyOnlyToUnsetVariables() {
        assertExpands("/fallback", "${NOPE:-/fallback}");
        assertExpands("", "${NOPE:-}");
        assertExpands("a:bc}", "${NOPE:-a:b}c}");
        assertExpands("x ${y", "${NOPE:-x ${y}", "the default runs up to the first }, literally");
    }

    @Test
    void anEmptyValueCountsAsSet() {
        assertExpands("", "${EMPTY}");
        assertExpands("", "${EMPTY:-default}");
        assertExpands("[]", "[${EMPTY}]");
    }

    @Test
    void unsetWithoutDefaultStaysAndIsReported() {
        List<String> unset = new ArrayList<>();
        assertEquals("${NOPE}/x/${ALSO_NOT}", Expansion.expand("${NOPE}/x/${ALSO_NOT}", ENV, unset::add));
        assertEquals(List.of("NOPE", "ALSO_NOT"), unset);
    }

    @Test
    void whatIsNotOursStaysAsWrittenWithoutAWarning() {
        assertExpands("$HOME", "$HOME");
        assertExpands("$$HOME and $", "$$HOME and $");
        assertExpands("${input:token}", "${input:token}");
        assertExpands("${env:HOME}", "${env:HOME}");
        assertExpands("${1ABC}", "${1ABC}");
        assertExpands("${}", "${}");
        assertExpands("${HOME-x}", "${HOME-x}");
        assertExpands("${ HOME }", "${ HOME }");
        assertExpands("${HOME", "${HOME");
        assertExpands("/home/me${HOME", "${HOME}${HOME");
        assertExpands("${abc /home/me", "${abc ${HOME}");
        assertExpands("}{$", "}{$");
    }

    @Test
    void expandedValuesAreNotExpandedAgain() {
        assertExpands("${HOME}", "${REF}");
    }

    @Test
    void everyExpandableFieldAndNothingElse() {
        ServerSpec spec = entry("${HOME}").type("${HOME}").command("${HOME}/bin/srv").args("--token=${TOKEN}", "${NOPE}")
                .env("${HOME}", "${TOKEN}").env("K", "${NOPE}").cwd("${HOME}/w").url("https://h/${NOPE}/${NOPE}")
                .header("Authorization", "Bearer ${TOKEN}").build();

        Expansion.Expanded expanded = Expansion.expand(spec, ENV);

        ServerSpec out = expanded.spec();
        assertEquals("${HOME}", out.name(), "names are not expanded");
        assertEquals(Optional.of("${HOME}"), out.type(), "types are not expanded");
        assertEquals(Optional.of("/home/me/bin/srv"), out.command());
        assertEquals(List.of("--token=secret", "${NOPE}"), out.args());
        assertEquals(Map.of("${HOME}", "secret", "K", "${NOPE}"), out.env(), "keys are not expanded");
        assertEquals(Optional.of("/home/me/w"), out.cwd());
        assertEquals(Optional.of("https://h/${NOPE}/${NOPE}"), out.url());
        assertEquals(Map.of("Authorization", "Bearer secret"), out.headers());
        assertEquals(List.of(new Expansion.Unset("NOPE", "args[1]"), new Expansion.Unset("NOPE", "env.K"),
                new Expansion.Unset("NOPE", "url")), expanded.unset(), "once per variable and field");
        assertEquals("Server \"x\": environment variable \"NOPE\" is not set (in \"url\")",
                expanded.unset().get(2).message("x"));
    }

    @Test
    void anEntryWithoutReferencesIsUnchanged() {
        ServerSpec spec = entry("s").command("node").args("a").env("K", "V").url("u").header("H", "v").build();
        Expansion.Expanded expanded = Expansion.expand(spec, ENV);
        assertEquals(spec, expanded.spec());
        assertEquals(List.of(), expanded.unset());
    }

    private static void assertExpands(String expected, String text) {
        assertExpands(expected, text, text);
    }

    private static void assertExpands(String expected, String text, String message) {
        List<String> unset = new ArrayList<>();
        assertEquals(expected, Expansion.expand(text, ENV, unset::add), message);
        assertEquals(List.of(), unset, "no warning for " + text);
    }
}
