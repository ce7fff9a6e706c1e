package mcp.config.internal;

import static mcp.config.internal.ValidationTest.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.ServerSpec;
import mcp.api.SourceMetadata;
import mcp.api.spi.ConfigFilter;
import org.junit.jupiter.api.Test;

/** The three built-in filters on their own. */
class BuiltInFiltersTest {

    /** A context with given options that records what is extracted. */
    static final class Recorder implements ConfigFilter.Context {
        final Map<String, Boolean> options;
        final List<String> extracted = new ArrayList<>();

        Recorder(Map<String, Boolean> options) {
            this.options = options;
        }

        @Override
        public boolean option(String name, boolean defaultValue) {
            return options.getOrDefault(name, defaultValue);
        }

        @Override
        public void extract(String kind, String value) {
            extracted.add(kind + "=" + value);
        }
    }

    @Test
    void exaDetection() {
        assertTrue(ExaFilter.isExa(entry("exa").command("x").build()));
        assertTrue(ExaFilter.isExa(entry("Exa").command("x").build()));
        assertTrue(ExaFilter.isExa(entry("s").url("https://mcp.exa.ai/mcp").build()));
        assertTrue(ExaFilter.isExa(entry("s").command("npx").args("-y", "https://MCP.EXA.AI/x").build()));
        assertFalse(ExaFilter.isExa(entry("exa1").command("x").build()));
        assertFalse(ExaFilter.isExa(entry("s").command("exa").env("EXA_API_KEY", "k").build()));
    }

    @Test
    void keyOrderAndOddValues() {
        assertEquals(Optional.of("u"), ExaFilter.apiKey(entry("exa").url("https://mcp.exa.ai/?exaApiKey=u")
                .args("exaApiKey=a").env("EXA_API_KEY", "e").build()));
        assertEquals(Optional.of("a"), ExaFilter.apiKey(entry("exa").url("https://mcp.exa.ai/")
                .args("x", "--url=https://mcp.exa.ai/?exaApiKey=a").env("EXA_API_KEY", "e").build()));
        assertEquals(Optional.of("e"), ExaFilter.apiKey(entry("exa").url("https://mcp.exa.ai/?exaApiKey=")
                .env("EXA_API_KEY", "e").build()));
        assertEquals(Optional.of("second"), ExaFilter.apiKey(entry("exa")
                .url("https://mcp.exa.ai/?exaApiKey=${X}&exaApiKey=second").build()));
        assertEquals(Optional.of("k"), ExaFilter.apiKey(entry("exa").url("https://mcp.exa.ai/?EXAAPIKEY=k#frag").build()));
        assertEquals(Optional.of("100%"), ExaFilter.apiKey(entry("exa").url("https://mcp.exa.ai/?exaApiKey=100%").build()));
        assertEquals(Optional.empty(), ExaFilter.apiKey(entry("exa").url("https://mcp.exa.ai/?myexaApiKey=no").build()));
        assertEquals(Optional.empty(), ExaFilter.apiKey(entry("exa").command("npx").env("EXA_API_KEY", " ").build()));
    }

    @Test
    void optionOffKeepsEverything() {
        ServerSpec exa = entry("exa").url("https://mcp.exa.ai/?exaApiKey=k").build();
        Recorder context = new Recorder(Map.of(ExaFilter.OPTION, false));
        assertEquals(ConfigFilter.Decision.keep(exa), new ExaFilter().apply(exa, context));
        assertEquals(List.of(), context.extracted);
    }

    @Test
    void dropAndExtract() {
        ServerSpec exa = entry("exa").url("https://mcp.exa.ai/?exaApiKey=k").build();
        Recorder context = new Recorder(Map.of());
        ConfigFilter.Decision decision = new ExaFilter().apply(exa, context);
        assertTrue(decision.kept().isEmpty());
        assertFalse(decision.reason().contains("k="), decision.reason());
        assertEquals(List.of("exaApiKey=k"), context.extracted);
    }

    @Test
    void enabledAndProjectFilters() {
        Recorder defaults = new Recorder(Map.of());
        Recorder projectOff = new Recorder(Map.of(ProjectFilter.OPTION, false));
        ServerSpec off = entry("s").command("x").enabled(false).build();
        ServerSpec on = entry("s").command("x").enabled(true).build();
        ServerSpec unset = entry("s").command("x").build();
        assertTrue(new EnabledFilter().apply(off, defaults).kept().isEmpty());
        assertEquals(Optional.of(on), new EnabledFilter().apply(on, defaults).kept());
        assertEquals(Optional.of(unset), new EnabledFilter().apply(unset, defaults).kept());

        ServerSpec project = entry("s").command("x").level(SourceMetadata.Level.PROJECT).build();
        ServerSpec nativeLevel = entry("s").command("x").level(SourceMetadata.Level.NATIVE).build();
        assertEquals(Optional.of(project), new ProjectFilter().apply(project, defaults).kept());
        assertTrue(new ProjectFilter().apply(project, projectOff).kept().isEmpty());
        assertEquals(Optional.of(unset), new ProjectFilter().apply(unset, projectOff).kept());
        assertEquals(Optional.of(nativeLevel), new ProjectFilter().apply(nativeLevel, projectOff).kept());
    }
}
