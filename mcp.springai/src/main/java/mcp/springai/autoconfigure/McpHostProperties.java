package mcp.springai.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import mcp.host.ToolSearch;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code mcp-host.*} properties: how the auto-configured {@link mcp.host.McpHost} finds, starts and offers the
 * user's MCP servers. Each maps to a setting of {@link mcp.host.McpHost.Builder}, with its default; what no property
 * covers is set by an {@link McpHostBuilderCustomizer} bean.
 */
@ConfigurationProperties(prefix = "mcp-host")
public class McpHostProperties {

    /** Whether MCP servers are discovered and started at all; off, the host starts nothing and offers no tool. */
    private boolean enabled = true;

    /**
     * The project directory: project-level config files are looked for here and in each parent up to the repository
     * root. Default: the JVM's working directory.
     */
    private String workingDirectory;

    /** The user's home directory, for user-level config files and mcp-host's own state. Default: $HOME. */
    private String home;

    /**
     * Read only this file (the native "mcpServers" format) instead of discovering every tool's config files.
     */
    private String configFile;

    /** Whether project-level config files are read (a project server still needs an approval to start). */
    private boolean projectConfig = true;

    /** Whether Exa servers are filtered out of discovery. */
    private boolean exaFilter = true;

    /** mcp-host's managed policy file, instead of the platform's (/etc/mcp-host/managed-mcp.json on Linux). */
    private String managedPolicy;

    /**
     * How long starting the application waits for the servers: those that are not up by then are served from the
     * tool cache and bound when they arrive.
     */
    private Duration startupGate = Duration.ofMillis(250);

    /**
     * How long starting the application waits for a server whose tools the cache does not hold; its tools come later
     * as a tool list change.
     */
    private Duration uncachedWait = Duration.ofSeconds(10);

    /** Whether every stdio server of a project-level file runs in a bubblewrap sandbox (Linux). */
    private boolean sandboxProjectServers;

    /**
     * Whether servers start lazily: their cached tools are offered, and the first call of one starts its server.
     */
    private boolean lazy;

    /** How long a lazy server may be idle before it is stopped. */
    private Duration lazyIdleTimeout = Duration.ofMinutes(10);

    /** Whether servers' log messages are also written to files under mcp-host's state directory. */
    private boolean serverLogsToFiles = true;

    /**
     * Where results too large for the model's context are saved (a directory of the session's is made in it).
     * Default: java.io.tmpdir.
     */
    private String resultDirectory;

    /** Whether the saved results are kept when the application stops. */
    private boolean keepResultFiles;

    /**
     * Whether the config files the host read are watched, and the servers whose config changed restarted (the
     * others keep running; the tools follow).
     */
    private boolean watchConfigs;

    private final Cache cache = new Cache();
    private final Approvals approvals = new Approvals();
    private final ToolPinning toolPinning = new ToolPinning();
    private final ToolSearchSettings toolSearch = new ToolSearchSettings();

    /** The tool cache, which lets the application start without waiting for slow servers. */
    public static class Cache {

        /** Whether servers' tool lists are cached between runs. */
        private boolean enabled = true;

        /** Where the tool cache is kept. Default: $XDG_CACHE_HOME/mcp-host/tools, else ~/.cache/mcp-host/tools. */
        private String directory;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getDirectory() {
            return directory;
        }

        public void setDirectory(String directory) {
            this.directory = directory;
        }
    }

    /** Approvals of project-level servers (a project's file may start programs: each needs the user's yes). */
    public static class Approvals {

        /**
         * Where the user's approvals and denials are kept. Default: $XDG_STATE_HOME/mcp-host/approvals.json, else
         * ~/.local/state/mcp-host/approvals.json (shared with the mcp-host command: "mcp-host approve").
         */
        private String file;

        /**
         * Whether project servers start without an approval, for automation that trusts its checkout. Nothing is
         * saved; denials and the managed policy still hold.
         */
        private boolean approveProjectServers;

        public String getFile() {
            return file;
        }

        public void setFile(String file) {
            this.file = file;
        }

        public boolean isApproveProjectServers() {
            return approveProjectServers;
        }

        public void setApproveProjectServers(boolean approveProjectServers) {
            this.approveProjectServers = approveProjectServers;
        }
    }

    /** Pinned tool definitions: a tool whose definition changed is withheld from the model until accepted. */
    public static class ToolPinning {

        /** Whether servers' tool definitions are pinned and a changed tool withheld. */
        private boolean enabled = true;

        /** Whether a tool not pinned before (new or renamed) is withheld too. */
        private boolean strictNewTools;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isStrictNewTools() {
            return strictNewTools;
        }

        public void setStrictNewTools(boolean strictNewTools) {
            this.strictNewTools = strictNewTools;
        }
    }

    /** Deferred loading: instead of every tool definition, the model gets a search tool and what it found. */
    public static class ToolSearchSettings {

        /** When the model gets the search tool instead of every MCP definition: off, on, or auto. */
        private ToolSearch.Mode mode = ToolSearch.Mode.OFF;

        /** The model's context window in tokens, for mode auto. */
        private int contextTokens = 200_000;

        /** The share of the context window the tool definitions may take before mode auto defers them. */
        private double share = 0.1;

        /** Servers (by name) and tools (by session name, e.g. mcp_github_create_issue) always given to the model. */
        private Set<String> alwaysLoad = new LinkedHashSet<>();

        public ToolSearch.Mode getMode() {
            return mode;
        }

        public void setMode(ToolSearch.Mode mode) {
            this.mode = mode;
        }

        public int getContextTokens() {
            return contextTokens;
        }

        public void setContextTokens(int contextTokens) {
            this.contextTokens = contextTokens;
        }

        public double getShare() {
            return share;
        }

        public void setShare(double share) {
            this.share = share;
        }

        public Set<String> getAlwaysLoad() {
            return alwaysLoad;
        }

        public void setAlwaysLoad(Set<String> alwaysLoad) {
            this.alwaysLoad = alwaysLoad;
        }

        /** @return these settings as the host takes them */
        public ToolSearch toToolSearch() {
            return new ToolSearch(mode, contextTokens, share, alwaysLoad);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getWorkingDirectory() {
        return workingDirectory;
    }

    public void setWorkingDirectory(String workingDirectory) {
        this.workingDirectory = workingDirectory;
    }

    public String getHome() {
        return home;
    }

    public void setHome(String home) {
        this.home = home;
    }

    public String getConfigFile() {
        return configFile;
    }

    public void setConfigFile(String configFile) {
        this.configFile = configFile;
    }

    public boolean isProjectConfig() {
        return projectConfig;
    }

    public void setProjectConfig(boolean projectConfig) {
        this.projectConfig = projectConfig;
    }

    public boolean isExaFilter() {
        return exaFilter;
    }

    public void setExaFilter(boolean exaFilter) {
        this.exaFilter = exaFilter;
    }

    public String getManagedPolicy() {
        return managedPolicy;
    }

    public void setManagedPolicy(String managedPolicy) {
        this.managedPolicy = managedPolicy;
    }

    public Duration getStartupGate() {
        return startupGate;
    }

    public void setStartupGate(Duration startupGate) {
        this.startupGate = startupGate;
    }

    public Duration getUncachedWait() {
        return uncachedWait;
    }

    public void setUncachedWait(Duration uncachedWait) {
        this.uncachedWait = uncachedWait;
    }

    public boolean isSandboxProjectServers() {
        return sandboxProjectServers;
    }

    public void setSandboxProjectServers(boolean sandboxProjectServers) {
        this.sandboxProjectServers = sandboxProjectServers;
    }

    public boolean isLazy() {
        return lazy;
    }

    public void setLazy(boolean lazy) {
        this.lazy = lazy;
    }

    public Duration getLazyIdleTimeout() {
        return lazyIdleTimeout;
    }

    public void setLazyIdleTimeout(Duration lazyIdleTimeout) {
        this.lazyIdleTimeout = lazyIdleTimeout;
    }

    public boolean isServerLogsToFiles() {
        return serverLogsToFiles;
    }

    public void setServerLogsToFiles(boolean serverLogsToFiles) {
        this.serverLogsToFiles = serverLogsToFiles;
    }

    public String getResultDirectory() {
        return resultDirectory;
    }

    public void setResultDirectory(String resultDirectory) {
        this.resultDirectory = resultDirectory;
    }

    public boolean isKeepResultFiles() {
        return keepResultFiles;
    }

    public void setKeepResultFiles(boolean keepResultFiles) {
        this.keepResultFiles = keepResultFiles;
    }

    public boolean isWatchConfigs() {
        return watchConfigs;
    }

    public void setWatchConfigs(boolean watchConfigs) {
        this.watchConfigs = watchConfigs;
    }

    public Cache getCache() {
        return cache;
    }

    public Approvals getApprovals() {
        return approvals;
    }

    public ToolPinning getToolPinning() {
        return toolPinning;
    }

    public ToolSearchSettings getToolSearch() {
        return toolSearch;
    }
}
