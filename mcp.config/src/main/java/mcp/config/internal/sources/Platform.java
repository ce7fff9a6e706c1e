package mcp.config.internal.sources;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import mcp.api.UserDirectories;

/**
 * The operating system's conventions for the per-user folders desktop tools keep their settings in.
 * Sources that depend on it take it in a package-private constructor, so that a test on one system
 * checks the others' paths through the context's home and environment.
 */
enum Platform {
    LINUX, MACOS, WINDOWS;

    /** @return the platform this JVM runs on; any other Unix counts as Linux (XDG folders) */
    static Platform current() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("mac") || os.startsWith("darwin")) {
            return MACOS;
        }
        return os.startsWith("windows") ? WINDOWS : LINUX;
    }

    /**
     * A machine-wide path an administrator manages (a managed policy, system settings).
     *
     * @param environment the discovery's environment
     * @param variable the environment variable that moves it (an absolute path), for tests and unusual installs
     * @param linux the path on Linux and any other Unix
     * @param macos the path on macOS
     * @param windows the path on Windows
     * @return the variable's path, else this platform's of the three
     */
    Path machinePath(Map<String, String> environment, String variable, String linux, String macos, String windows) {
        return SearchPath.absolutePath(environment.get(variable)).orElseGet(() -> machinePath(linux, macos, windows));
    }

    /** @return this platform's of three machine-wide paths */
    Path machinePath(String linux, String macos, String windows) {
        return Path.of(this == MACOS ? macos : this == WINDOWS ? windows : linux);
    }

    /**
     * @return {@code $XDG_CONFIG_HOME} when it is an absolute path, else {@code ~/.config}: where the
     *     command-line tools that follow the XDG spec keep their settings, on macOS as well
     */
    static Path xdgConfigHome(Path home, Map<String, String> environment) {
        return UserDirectories.of(environment, home).configHome();
    }

    /**
     * Electron's {@code appData} folder, which Claude Desktop and VS Code keep their settings under
     * (VS Code: {@code userDataPath.ts}): on Linux {@link #xdgConfigHome}, on macOS
     * {@code ~/Library/Application Support}, on Windows {@code %APPDATA%} when absolute, else
     * {@code ~/AppData/Roaming}.
     */
    Path appData(Path home, Map<String, String> environment) {
        switch (this) {
            case MACOS:
                return home.resolve("Library/Application Support");
            case WINDOWS:
                return appDataVariable(environment).orElse(home.resolve("AppData/Roaming"));
            default:
                return xdgConfigHome(home, environment);
        }
    }

    /** @return {@code %APPDATA%} when absolute; Windows spells variable names in any case */
    static Optional<Path> appDataVariable(Map<String, String> environment) {
        String value = environment.get("APPDATA");
        if (value == null) {
            value = environment.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("APPDATA"))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
        }
        return SearchPath.absolutePath(value);
    }
}
