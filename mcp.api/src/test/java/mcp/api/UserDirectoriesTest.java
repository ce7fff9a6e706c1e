package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one rule for the home and the XDG directories, with every way a variable can be unusable. */
class UserDirectoriesTest {

    @TempDir
    Path temp;

    private static final Path USER_HOME = Path.of(System.getProperty("user.home")).toAbsolutePath().normalize();

    @Test
    void anAbsoluteHomeVariableWinsOverUserHome() {
        Path home = temp.resolve("home");
        assertEquals(home, UserDirectories.home(Map.of("HOME", home.toString())));
        assertEquals(home, UserDirectories.of(Map.of("HOME", home.toString())).home());
        assertEquals(home, UserDirectories.home(Map.of("HOME", temp.resolve("x/../home").toString())),
                "normalized");
    }

    @Test
    void aMissingEmptyRelativeOrInvalidHomeVariableFallsBackToUserHome() {
        assertEquals(USER_HOME, UserDirectories.home(Map.of()));
        assertEquals(USER_HOME, UserDirectories.home(Map.of("HOME", "")));
        assertEquals(USER_HOME, UserDirectories.home(Map.of("HOME", "relative/home")));
        assertEquals(USER_HOME, UserDirectories.home(Map.of("HOME", "bad\0home")));
        assertEquals(USER_HOME, UserDirectories.of(Map.of("HOME", "relative/home")).home());
    }

    @Test
    void withoutXdgVariablesEverythingIsUnderTheHome() {
        Path home = temp.resolve("home");
        UserDirectories dirs = UserDirectories.of(Map.of("HOME", home.toString()));
        assertEquals(home.resolve(".config"), dirs.configHome());
        assertEquals(home.resolve(".local/state"), dirs.stateHome());
        assertEquals(home.resolve(".cache"), dirs.cacheHome());
        assertEquals(home.resolve(".config/mcp-host"), dirs.config());
        assertEquals(home.resolve(".local/state/mcp-host"), dirs.state());
        assertEquals(home.resolve(".cache/mcp-host"), dirs.cache());
    }

    @Test
    void absoluteXdgVariablesMoveEachBaseOnItsOwn() {
        Path home = temp.resolve("home");
        Map<String, String> env = new HashMap<>(Map.of("HOME", home.toString()));
        env.put("XDG_CONFIG_HOME", temp.resolve("cfg").toString());
        UserDirectories config = UserDirectories.of(env);
        assertEquals(temp.resolve("cfg/mcp-host"), config.config());
        assertEquals(home.resolve(".local/state/mcp-host"), config.state());
        assertEquals(home.resolve(".cache/mcp-host"), config.cache());

        env.put("XDG_STATE_HOME", temp.resolve("state").toString());
        env.put("XDG_CACHE_HOME", temp.resolve("a/../cache").toString());
        UserDirectories all = UserDirectories.of(env);
        assertEquals(temp.resolve("cfg"), all.configHome());
        assertEquals(temp.resolve("state"), all.stateHome());
        assertEquals(temp.resolve("cache"), all.cacheHome(), "normalized");
    }

    @Test
    void relativeEmptyOrInvalidXdgVariablesAreIgnored() {
        Path home = temp.resolve("home");
        for (String value : new String[] {"relative", "", "./x", "bad\0path"}) {
            UserDirectories dirs = UserDirectories.of(Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", value,
                    "XDG_STATE_HOME", value, "XDG_CACHE_HOME", value));
            assertEquals(new UserDirectories(home, home.resolve(".config"), home.resolve(".local/state"),
                    home.resolve(".cache")), dirs, "XDG_* = \"" + value + "\"");
        }
    }

    @Test
    void aHomeGivenByTheCallerWinsOverTheVariableButTheXdgOnesStillCount() {
        Path given = temp.resolve("given");
        Map<String, String> env = Map.of("HOME", temp.resolve("variable").toString(),
                "XDG_STATE_HOME", temp.resolve("state").toString());
        UserDirectories dirs = UserDirectories.of(env, given);
        assertEquals(given, dirs.home());
        assertEquals(given.resolve(".config"), dirs.configHome());
        assertEquals(temp.resolve("state/mcp-host"), dirs.state());
        assertEquals(Path.of("rel").toAbsolutePath(), UserDirectories.of(Map.of(), Path.of("rel")).home(),
                "a relative home is made absolute");
    }

    @Test
    void everyDirectoryMustBeAbsolute() {
        Path home = temp.resolve("home");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new UserDirectories(home, Path.of("config"), home, home));
        assertEquals("configHome must be an absolute path, got \"config\"", e.getMessage());
        assertThrows(NullPointerException.class, () -> new UserDirectories(null, home, home, home));
    }
}
