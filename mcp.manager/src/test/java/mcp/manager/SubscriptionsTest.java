package mcp.manager;

import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.Content;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.manager.internal.ClientSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Resource subscriptions and the list changes of prompts and resources against the testkit server (a real child
 * over stdio), in both eras: {@code resources/subscribe} in 2025, the {@code subscriptions/listen} stream's
 * {@code resourceSubscriptions} in 2026-07-28. The server's own count of the updates it sent ({@code touch_resource})
 * and of its open streams ({@code listens}) shows what the client asked for, not only what it heard.
 */
class SubscriptionsTest {

    private static final String README = "test://text/readme";
    private static final String BLOB = "test://blob/data";

    private final List<McpClient> clients = new ArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        clients.forEach(McpClient::close);
        TestServerProcesses.assertNoChildProcessLeft();
    }

    private McpClient connectIn(String era, ClientListener listener, String... args) {
        List<String> all = new ArrayList<>(List.of("--era", era));
        all.addAll(List.of(args));
        McpClient client = connect(era, ClientOptions.builder(era).listener(listener), all.toArray(String[]::new));
        clients.add(client);
        return client;
    }

    private static String call(McpClient client, String tool, String... uri) {
        ToolResult result = client.callToolBlocking(tool, uri.length == 0 ? McpJson.object()
                : McpJson.object().put("uri", uri[0]));
        return ((Content.Text) result.content().get(0)).text();
    }

    private static JsonNode listens(McpClient client) {
        return McpJson.mapper().readTree(call(client, "listens"));
    }

    private static long received(McpClient client, String method) {
        JsonNode methods = McpJson.mapper().readTree(call(client, "received"));
        long count = 0;
        for (JsonNode m : methods) {
            count += m.asString().equals(method) ? 1 : 0;
        }
        return count;
    }

    /** A listener that queues every resource update. */
    private static ClientListener updates(BlockingQueue<String> queue) {
        return new ClientListener() {
            @Override
            public void onResourceUpdated(String uri) {
                queue.add(uri);
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void updatesOfASubscribedResourceArriveUntilItIsUnsubscribed(String era) throws Exception {
        BlockingQueue<String> updates = new LinkedBlockingQueue<>();
        McpClient client = connectIn(era, updates(updates), "--features", "resources,subscriptions");
        assertEquals("notified 0", call(client, "touch_resource", README), "nobody subscribed yet");

        McpClient.await(client.subscribeResource(README));
        assertEquals(Set.of(README), client.subscribedResources());
        assertEquals("notified 1", call(client, "touch_resource", README));
        assertEquals(README, updates.poll(10, TimeUnit.SECONDS));
        assertTrue(McpClient.await(client.readResource(README)).contents().get(0).text().orElseThrow()
                .endsWith("(version 2)"), "the update is real: the resource changed");

        McpClient.await(client.subscribeResource(BLOB));
        McpClient.await(client.subscribeResource(BLOB)); // twice is once
        assertEquals(Set.of(README, BLOB), client.subscribedResources());
        if (era.equals("modern")) {
            // One stream with the whole set: the one with README alone was cancelled once this one was acknowledged.
            JsonNode open = listens(client);
            assertEquals(1, open.size(), open.toString());
            assertEquals(List.of(README, BLOB), strings(open.get(0).path("resourceSubscriptions")));
        } else {
            assertEquals(List.of(README, BLOB).stream().sorted().toList(), strings(listens(client)).stream().sorted().toList());
        }
        assertEquals("notified 1", call(client, "touch_resource", BLOB), "one stream, one update");
        assertEquals(BLOB, updates.poll(10, TimeUnit.SECONDS));

        McpClient.await(client.unsubscribeResource(README));
        assertEquals(Set.of(BLOB), client.subscribedResources());
        assertEquals("notified 0", call(client, "touch_resource", README), "unsubscribed: the server sends nothing");
        assertEquals("notified 1", call(client, "touch_resource", BLOB));
        assertEquals(BLOB, updates.poll(10, TimeUnit.SECONDS), "the update after an unsubscription is the other URI's");

        McpClient.await(client.unsubscribeResource(BLOB));
        assertEquals(Set.of(), client.subscribedResources());
        assertEquals(0, listens(client).size(), "no stream (2026) or subscription (2025) left");
        assertEquals("notified 0", call(client, "touch_resource", BLOB));
        assertNull(updates.poll(200, TimeUnit.MILLISECONDS));
        if (era.equals("legacy")) {
            assertEquals(3, received(client, "resources/subscribe"));
            assertEquals(0, received(client, "subscriptions/listen"));
        } else {
            assertEquals(0, received(client, "resources/subscribe"));
            // The tool list stream, then one resource stream per change of the set: {R}, {R, B}, {B}; none for {}.
            assertEquals(4, received(client, "subscriptions/listen"));
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asString()));
        return values;
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void withoutTheSubscribeCapabilityASubscriptionFailsAtOnceAndNothingIsSent(String era) {
        McpClient client = connectIn(era, new ClientListener() { }, "--features", "resources");
        McpException refused = assertThrows(McpException.class, () -> McpClient.await(client.subscribeResource(README)));
        assertTrue(refused.getMessage().contains("does not offer resource subscriptions"), refused.getMessage());
        assertThrows(McpException.class, () -> McpClient.await(client.unsubscribeResource(README)));
        assertEquals(Set.of(), client.subscribedResources());
        assertEquals(0, received(client, "resources/subscribe") + received(client, "resources/unsubscribe"));
        assertEquals(era.equals("modern") ? 1 : 0, received(client, "subscriptions/listen"), "the tool list stream only");
    }

    @ParameterizedTest
    @ValueSource(strings = {"legacy", "modern"})
    void listChangesOfPromptsAndResourcesReachTheListenerCoalescedPerKind(String era) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger prompts = new AtomicInteger();
        AtomicInteger resources = new AtomicInteger();
        McpClient client = connectIn(era, new ClientListener() {
            @Override
            public void onPromptsListChanged() {
                prompts.incrementAndGet();
                entered.countDown();
                await(gate);
            }

            @Override
            public void onResourcesListChanged() {
                resources.incrementAndGet();
            }
        }, "--features", "prompts,resources,list-changes");
        ClientSession session = (ClientSession) client;
        assertEquals("notified 1", call(client, "change_prompts"));
        assertTrue(entered.await(10, TimeUnit.SECONDS), "the first prompt list change reached the listener");
        // While the listener is busy: three more of prompts wait as one, two of resources as one. Each notification
        // precedes its tool's answer on the wire, so it has been taken when the call returns.
        for (int i = 0; i < 3; i++) {
            assertEquals("notified 1", call(client, "change_prompts"));
        }
        for (int i = 0; i < 2; i++) {
            assertEquals("notified 1", call(client, "change_resources"));
        }
        assertEquals(3, session.bounds().coalescedListChanges());
        gate.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((prompts.get() < 2 || resources.get() < 1) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(2, prompts.get());
        assertEquals(1, resources.get());
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aServerThatRefusesTheWiderListenFilterStillTellsItsToolChanges() throws Exception {
        CountDownLatch tools = new CountDownLatch(1);
        McpClient client = connectIn("modern", new ClientListener() {
            @Override
            public void onToolsListChanged() {
                tools.countDown();
            }
        }, "--features", "prompts,resources,list-changes", "--fault", "listen-tools-only");
        // The tools-only stream is opened once the refusal came back: change the tools until it has told of it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do {
            call(client, "change_tools");
        } while (!tools.await(100, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline);
        assertEquals(0, tools.getCount(), "tool list changes on the tools-only stream");
        assertEquals(2, received(client, "subscriptions/listen"), "the wide filter refused, then tools alone");
        assertEquals("notified 0", call(client, "change_prompts"), "no stream asked for prompts");
    }

    @Test
    void aResourceStreamTheServerEndsIsOpenedAgainAndItsResourcesReportedUpdated() throws Exception {
        BlockingQueue<String> updates = new LinkedBlockingQueue<>();
        McpClient client = connectIn("modern", updates(updates), "--features", "resources,subscriptions");
        McpClient.await(client.subscribeResource(README));
        assertEquals("ended 2", call(client, "end_listen"), "the tool list stream and the resource stream");
        assertEquals(README, updates.poll(10, TimeUnit.SECONDS), "opened again: an update may have been missed");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (listens(client).size() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals("notified 1", call(client, "touch_resource", README), "the new stream carries the subscription");
        assertEquals(README, updates.poll(10, TimeUnit.SECONDS));
        assertEquals(Set.of(README), client.subscribedResources());
    }
}
