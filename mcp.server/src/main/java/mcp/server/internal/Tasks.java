package mcp.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.protocol.Era;
import mcp.protocol.ErrorCodes;
import mcp.protocol.TaskRules;
import mcp.server.ServerLimits;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tasks a server holds, and the requests about them ({@code tasks/*}) in both eras.
 *
 * <p><b>Whose task.</b> Every task belongs to the client that made it, and only that client reaches it: any other
 * gets the answer for a task that does not exist ({@code -32602}). In the handshake era the client is its session
 * (over stdio: its connection). The stateless revision has no session, so a task belongs to what the request says
 * of its caller: over stdio the connection, over HTTP its {@code Authorization} header (a digest of it; requests
 * without one share one owner). Clients that share one bearer token (a gateway's token, say) are then told apart by
 * nothing but the task id: 144 random bits that only the task's creator is told, and the stateless revision has no
 * {@code tasks/list} to find them by, so a task id works as a capability.
 *
 * <p><b>Bounds.</b> At most {@link ServerLimits#maxTasksPerClient()} tasks of one client and
 * {@link ServerLimits#maxTasks()} in all are held; a new task makes room by dropping the oldest ended one, and is
 * refused when all of them still run. A task is held at most {@link ServerLimits#taskTtl()} from its creation (a
 * 2025-11-25 client may ask for less with {@code task.ttl}); then it is dropped, and cancelled if it still runs. A
 * client that goes away (its session ends, its stdio connection closes) takes its tasks with it.
 *
 * <p>State: {@link #tasks} is concurrent; creating and dropping hold {@code this}, so the bounds hold.
 */
final class Tasks {

    /** The most tasks of one {@code tasks/list} page. */
    static final int PAGE = 100;

    /** The caller of a stateless HTTP request: a digest of its {@code Authorization} header, or none. */
    record HttpCaller(String authorizationDigest) {
    }

    private final ServerCore core;
    private final ServerLimits limits;
    private final Map<String, ServerTask> tasks = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();

    Tasks(ServerCore core) {
        this.core = core;
        this.limits = core.limits;
    }

    /** @param authorization an HTTP request's {@code Authorization} header, if any @return its caller */
    static HttpCaller httpCaller(Optional<String> authorization) {
        if (authorization.isEmpty()) {
            return new HttpCaller("");
        }
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(authorization.get().trim()
                    .getBytes(StandardCharsets.UTF_8));
            return new HttpCaller(Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /**
     * Holds a new task, within the bounds.
     *
     * @param requestedTtl the time to live the client asks for, or {@code 0} for the server's
     * @throws McpProtocolException when the bounds are reached by tasks that all still run
     */
    ServerTask create(Object owner, Era era, HandshakeSession session, long requestedTtl) {
        long ttl = limits.taskTtl().toMillis();
        if (requestedTtl > 0) {
            ttl = Math.min(ttl, requestedTtl);
        }
        byte[] bytes = new byte[18];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        ServerTask task = new ServerTask(core, id, owner, era, session, ttl);
        List<ServerTask> evicted = new ArrayList<>();
        synchronized (this) {
            List<ServerTask> own = tasks.values().stream().filter(t -> t.owner.equals(owner)).toList();
            if (own.size() >= limits.maxTasksPerClient()) {
                evicted.add(oldestEnded(own).orElseThrow(() -> busy(limits.maxTasksPerClient()
                        + " tasks of this client still run")));
            }
            if (tasks.size() - evicted.size() >= limits.maxTasks()) {
                evicted.add(oldestEnded(tasks.values().stream().filter(t -> !evicted.contains(t)).toList())
                        .orElseThrow(() -> busy(limits.maxTasks() + " tasks still run")));
            }
            evicted.forEach(t -> tasks.remove(t.id, t));
            tasks.put(id, task);
        }
        evicted.forEach(t -> {
            ServerCore.LOG.debug("MCP task {} dropped to make room for {}", t.id, id);
            if (t.expiry != null) {
                t.expiry.cancel(false);
            }
        });
        task.expiry = core.threads.timer.schedule(() -> expire(task), ttl, TimeUnit.MILLISECONDS);
        ServerCore.LOG.debug("MCP task {} created ({}, time to live {} ms)", id, era, ttl);
        return task;
    }

    private static Optional<ServerTask> oldestEnded(List<ServerTask> candidates) {
        return candidates.stream().filter(ServerTask::terminal).min(Comparator.comparing(t -> t.created));
    }

    private static McpProtocolException busy(String why) {
        return new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Server busy: " + why + "; cancel one or wait "
                + "until one ends", null);
    }

    private void expire(ServerTask task) {
        if (tasks.remove(task.id, task)) {
            ServerCore.LOG.debug("MCP task {} expired after {} ms", task.id, task.ttlMillis);
            task.cancel("the task's time to live (" + task.ttlMillis + " ms) ended");
        }
    }

    /** The client went away: its tasks are cancelled and dropped. */
    void dropOwner(Object owner) {
        List<ServerTask> own;
        synchronized (this) {
            own = tasks.values().stream().filter(t -> t.owner.equals(owner)).toList();
            own.forEach(t -> tasks.remove(t.id, t));
        }
        for (ServerTask task : own) {
            if (task.expiry != null) {
                task.expiry.cancel(false);
            }
            task.cancel("the client went away");
        }
    }

    /** @return the number of tasks held now */
    int size() {
        return tasks.size();
    }

    void close() {
        List.copyOf(tasks.values()).forEach(task -> task.cancel("the server closed"));
        tasks.clear();
    }

    private ServerTask find(JsonNode params, Object owner) {
        JsonNode id = params.get("taskId");
        if (id == null || !id.isString()) {
            throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Invalid params: taskId (a string) is "
                    + "missing", null);
        }
        ServerTask task = tasks.get(id.asString());
        // Another client's task is answered as one that does not exist: its id tells the caller nothing.
        if (task == null || !task.owner.equals(owner)) {
            throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Failed to retrieve task: Task not found "
                    + "(it never existed, expired, or belongs to another client)", null);
        }
        return task;
    }

    // ------------------------------------------------------------------------------------------ handshake era

    /** {@code tasks/get}, {@code tasks/result}, {@code tasks/list} or {@code tasks/cancel} of a session. */
    void handshakeRequest(HandshakeSession session, JsonRpcRequest request, ObjectNode params, Channel channel) {
        try {
            switch (request.method()) {
                case "tasks/get" -> channel.finish(new JsonRpcSuccess(request.id(), find(params, session).json(false)),
                        200);
                case "tasks/result" -> {
                    ServerTask task = find(params, session);
                    task.addCarrier(channel);
                    task.done.thenRun(() -> {
                        task.removeCarrier(channel);
                        channel.finish(task.resultResponse(request.id()), 200);
                    });
                }
                case "tasks/list" -> channel.finish(new JsonRpcSuccess(request.id(), list(session,
                        params.get("cursor"))), 200);
                case "tasks/cancel" -> {
                    ServerTask task = find(params, session);
                    if (!task.cancel("The task was cancelled by request.")) {
                        throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Cannot cancel task: already "
                                + "in terminal status '" + task.status() + "'", null);
                    }
                    channel.finish(new JsonRpcSuccess(request.id(), task.json(false)), 200);
                }
                default -> throw new McpProtocolException(JsonRpcError.METHOD_NOT_FOUND, "Method not found: "
                        + request.method(), null);
            }
        } catch (McpProtocolException e) {
            channel.finish(new JsonRpcError(request.id(), e.code(), e.serverMessage(), e.data().orElse(null)), 200);
        }
    }

    private ObjectNode list(Object owner, JsonNode cursor) {
        int offset = 0;
        if (cursor != null && !cursor.isNull()) {
            try {
                offset = Integer.parseInt(new String(Base64.getUrlDecoder().decode(cursor.asString("")),
                        StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                offset = -1;
            }
            if (offset < 0) {
                throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Invalid params: not a cursor of this "
                        + "server: " + cursor, null);
            }
        }
        List<ServerTask> own = tasks.values().stream().filter(t -> t.owner.equals(owner))
                .sorted(Comparator.comparing((ServerTask t) -> t.created).reversed().thenComparing(t -> t.id))
                .toList();
        ObjectNode result = McpJson.object();
        ArrayNode list = result.putArray("tasks");
        int end = Math.min(own.size(), offset + PAGE);
        for (int i = offset; i < end; i++) {
            list.add(own.get(i).json(false));
        }
        if (end < own.size()) {
            result.put("nextCursor", Base64.getUrlEncoder().withoutPadding().encodeToString(Integer.toString(end)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return result;
    }

    // ------------------------------------------------------------------------------------------ stateless revision

    /**
     * {@code tasks/get}, {@code tasks/update} or {@code tasks/cancel} of the stateless revision.
     *
     * @return the result (without {@code resultType}, which the caller adds)
     * @throws McpProtocolException for a client that did not declare the extension, an unknown task, or bad params
     */
    ObjectNode statelessRequest(String method, ObjectNode params, JsonNode clientCapabilities, Object caller) {
        if (!TaskRules.declaresExtension(clientCapabilities)) {
            throw TaskRules.missingExtension(method);
        }
        ServerTask task = find(params, caller);
        switch (method) {
            case "tasks/get" -> {
                return task.json(true);
            }
            case "tasks/update" -> {
                JsonNode responses = params.get("inputResponses");
                if (responses == null || !responses.isObject()) {
                    throw new McpProtocolException(JsonRpcError.INVALID_PARAMS, "Invalid params: tasks/update needs "
                            + "inputResponses (an object of answers by key)", null);
                }
                task.update(responses);
                return McpJson.object();
            }
            default -> {
                task.cancel("The task was cancelled by request.");
                return McpJson.object();
            }
        }
    }

    /** @return the HTTP status of an error about tasks in the stateless revision */
    static int httpStatus(McpProtocolException e) {
        return ErrorCodes.httpStatus(e.code());
    }
}
