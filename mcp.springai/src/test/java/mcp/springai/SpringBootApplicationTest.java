package mcp.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.spi.ConsentHandler;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import mcp.manager.ServerStatus;
import mcp.springai.autoconfigure.McpHostBuilderCustomizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * A Spring Boot application with the real auto-configuration (found through its AutoConfiguration.imports), started
 * as a user starts one, on testkit servers: a fast one, a slow one whose tools the cache holds from an earlier run,
 * and one that dies at start.
 */
class SpringBootApplicationTest {

    @TempDir
    Path home;

    /** The application: nothing but what it declares and what the auto-configuration adds. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        /** The scratch home's environment, so that no XDG directory of the machine's is read or written. */
        @Bean
        McpHostBuilderCustomizer scratchEnvironment(@Value("${mcp-host.home}") String home) {
            return builder -> builder.environment(TestConfigs.environment(Path.of(home)));
        }

        @Bean
        Events events() {
            return new Events();
        }
    }

    /** What the application heard, and when. */
    static class Events {
        volatile long readyAt;
        final List<McpServerStatusEvent> statuses = new CopyOnWriteArrayList<>();
        final List<McpToolsChangedEvent> toolChanges = new CopyOnWriteArrayList<>();
        final CountDownLatch slowConnected = new CountDownLatch(1);
        volatile long slowConnectedAt;

        @EventListener
        void ready(ApplicationReadyEvent event) {
            readyAt = System.nanoTime();
        }

        @EventListener
        void status(McpServerStatusEvent event) {
            statuses.add(event);
            if (event.serverName().equals("slow") && event.status().state() == ServerStatus.State.CONNECTED) {
                slowConnectedAt = System.nanoTime();
                slowConnected.countDown();
            }
        }

        @EventListener
        void tools(McpToolsChangedEvent event) {
            toolChanges.add(event);
        }
    }

    private ConfigurableApplicationContext start(Class<?> app, String... properties) {
        return new SpringApplicationBuilder(app).properties(properties).run();
    }

    private static List<String> names(McpToolCallbackProvider provider) {
        return Arrays.stream(provider.getToolCallbacks()).map(c -> c.getToolDefinition().name()).toList();
    }

    @Test
    void theApplicationIsReadyWithinTheGateAndTheSlowServersCachedToolsAreCallableOnceItArrives() throws Exception {
        Path config = TestConfigs.write(home.resolve("mcp.json"), TestConfigs.servers(
                "fast", List.of(),
                "slow", List.of("--init-delay-ms", "4000")));
        // An earlier run of the user's, which waited for the slow server and cached its tools.
        try (McpHost earlier = McpHost.builder().home(home).environment(TestConfigs.environment(home))
                .configFile(config).build(); ToolSession session = earlier.openSession()) {
            assertTrue(session.tool("mcp_slow_add").isPresent(), "the first run waits for an uncached server");
        }
        TestConfigs.assertNoChildLeft();

        long started = System.nanoTime();
        try (ConfigurableApplicationContext context = start(App.class,
                "mcp-host.home=" + home, "mcp-host.config-file=" + config)) {
            Events events = context.getBean(Events.class);
            McpToolCallbackProvider provider = context.getBean(McpToolCallbackProvider.class);
            System.out.printf("context ready in %d ms%n", TimeUnit.NANOSECONDS.toMillis(events.readyAt - started));

            // Ready before the slow server was: its tools are the cached ones.
            assertTrue(events.readyAt > 0, "no ApplicationReadyEvent");
            assertTrue(names(provider).contains("mcp_fast_add"), names(provider).toString());
            assertTrue(names(provider).contains("mcp_slow_add"), "the slow server's cached tools: " + names(provider));

            // A model's call of the slow server's tool waits for it to arrive, then goes through.
            ScriptedChatModel model = new ScriptedChatModel("mcp_slow_add", "{\"a\": 2, \"b\": 40}",
                    result -> "The slow server says " + result + ".");
            String answer = ChatClient.builder(model).defaultToolCallbacks(provider).build()
                    .prompt("What is 2 + 40?").call().content();
            assertEquals("The slow server says 42.", answer);

            assertTrue(events.slowConnected.await(30, TimeUnit.SECONDS), "no event of the slow server's arrival: "
                    + events.statuses.stream().map(e -> e.serverName() + "=" + e.status()).toList());
            assertTrue(events.readyAt < events.slowConnectedAt, "the application waited for the slow server: "
                    + events.statuses.stream().map(e -> e.serverName() + "=" + e.status()).toList());
            assertTrue(events.statuses.stream().anyMatch(e -> e.serverName().equals("fast")),
                    "the servers' statuses at the start are published too");
        }
        TestConfigs.assertNoChildLeft();
    }

    @Test
    void aServerThatFailsDoesNotFailTheContext() throws Exception {
        // The fast server's tools cached by an earlier run; nothing of the broken one, which never listed any.
        Path earlierConfig = TestConfigs.write(home.resolve("earlier.json"), TestConfigs.servers("fast", List.of()));
        try (McpHost earlier = McpHost.builder().home(home).environment(TestConfigs.environment(home))
                .configFile(earlierConfig).build(); ToolSession session = earlier.openSession()) {
            assertTrue(session.tool("mcp_fast_add").isPresent());
        }
        Path config = TestConfigs.write(home.resolve("mcp.json"), TestConfigs.servers(
                "fast", List.of(),
                "broken", List.of("--fault", "exit-at-start")));
        // No wait for the uncached broken server past the gate: its retries go on in the background.
        try (ConfigurableApplicationContext context = start(App.class, "mcp-host.home=" + home,
                "mcp-host.config-file=" + config, "mcp-host.uncached-wait=0")) {
            Events events = context.getBean(Events.class);
            McpToolCallbackProvider provider = context.getBean(McpToolCallbackProvider.class);
            ToolSession session = context.getBean(ToolSession.class);
            assertTrue(names(provider).contains("mcp_fast_add"), names(provider).toString());
            assertFalse(names(provider).stream().anyMatch(name -> name.startsWith("mcp_broken_")),
                    names(provider).toString());
            assertEquals("42", provider.getToolCallbacks()[names(provider).indexOf("mcp_fast_add")]
                    .call("{\"a\": 40, \"b\": 2}"));

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (session.lastLoad().manager().status("broken").error().isEmpty()
                    || session.lastLoad().manager().status("broken").state() == ServerStatus.State.CONNECTING) {
                assertTrue(System.nanoTime() < deadline, "the broken server's failure is never reported: "
                        + session.lastLoad().manager().status("broken"));
                Thread.sleep(100);
            }
            assertTrue(events.statuses.stream().anyMatch(e -> e.serverName().equals("broken")
                    && e.status().error().isPresent()), "its failure is an application event too");
        }
        TestConfigs.assertNoChildLeft();
    }

    /** The application's own beans win: here its own tool provider and its consent handler. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OwnBeans extends App {

        static final McpToolCallbackProvider[] MADE = new McpToolCallbackProvider[1];

        @Bean
        McpToolCallbackProvider onlyTheAddTools(ToolSession session) {
            MADE[0] = new McpToolCallbackProvider(session, tool -> tool.name().endsWith("_add"),
                    McpToolCallConfirmation.REFUSE);
            return MADE[0];
        }

        @Bean
        ConsentHandler approveEverything() {
            return server -> ConsentHandler.Decision.APPROVE;
        }
    }

    @Test
    void theApplicationsOwnBeansReplaceTheAutoConfiguredOnesAndItsConsentHandlerIsAsked() throws Exception {
        // A project-level server: it starts only with an approval, which the application's consent handler gives.
        Path project = Files.createDirectories(home.resolve("project"));
        TestConfigs.write(project.resolve(".mcp-host/mcp.json"), TestConfigs.servers("local", List.of()));
        try (ConfigurableApplicationContext context = start(OwnBeans.class, "mcp-host.home=" + home,
                "mcp-host.working-directory=" + project, "mcp-host.approvals.file=" + home.resolve("approvals.json"))) {
            McpToolCallbackProvider provider = context.getBean(McpToolCallbackProvider.class);
            assertSame(OwnBeans.MADE[0], provider);
            assertEquals(List.of("mcp_local_add"), names(provider));
            assertEquals("42", provider.getToolCallbacks()[0].call("{\"a\": 40, \"b\": 2}"));
        }
        TestConfigs.assertNoChildLeft();
    }

    @Test
    void withoutAConsentHandlerAProjectServerWaitsForItsApproval() throws Exception {
        Path project = Files.createDirectories(home.resolve("project"));
        TestConfigs.write(project.resolve(".mcp-host/mcp.json"), TestConfigs.servers("local", List.of()));
        try (ConfigurableApplicationContext context = start(App.class, "mcp-host.home=" + home,
                "mcp-host.working-directory=" + project, "mcp-host.approvals.file=" + home.resolve("approvals.json"))) {
            assertEquals(List.of(), names(context.getBean(McpToolCallbackProvider.class)));
        }
    }

    @Test
    void disabledItStartsNothingAndOffersNoTool() throws Exception {
        Path config = TestConfigs.write(home.resolve("mcp.json"), TestConfigs.servers("fast", List.of()));
        try (ConfigurableApplicationContext context = start(App.class, "mcp-host.home=" + home,
                "mcp-host.config-file=" + config, "mcp-host.enabled=false")) {
            assertEquals(List.of(), names(context.getBean(McpToolCallbackProvider.class)));
            assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count());
        }
    }

    @Test
    void thePropertiesReachTheHost() throws Exception {
        Path config = TestConfigs.write(home.resolve("mcp.json"), TestConfigs.servers("fast", List.of()));
        Path cache = home.resolve("tool-cache");
        try (ConfigurableApplicationContext context = start(App.class, "mcp-host.home=" + home,
                "mcp-host.config-file=" + config, "mcp-host.cache.directory=" + cache,
                "mcp-host.tool-search.mode=on", "mcp-host.tool-search.always-load=mcp_fast_echo")) {
            List<String> names = names(context.getBean(McpToolCallbackProvider.class));
            // Deferred loading: the search tool and the one tool always loaded, not every definition.
            assertTrue(names.contains("search_tools") && names.contains("mcp_fast_echo"), names.toString());
            assertFalse(names.contains("mcp_fast_add"), names.toString());
            assertTrue(Files.isDirectory(cache), "the tool cache is where the property says");
        }
        TestConfigs.assertNoChildLeft();
    }

    @Test
    void theConfigurationMetadataDescribesTheProperties() throws Exception {
        try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            String metadata = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            for (String name : List.of("mcp-host.startup-gate", "mcp-host.cache.enabled", "mcp-host.config-file",
                    "mcp-host.approvals.approve-project-servers", "mcp-host.tool-search.mode")) {
                assertTrue(metadata.contains("\"" + name + "\""), name + " is not in the metadata");
            }
        }
    }
}
