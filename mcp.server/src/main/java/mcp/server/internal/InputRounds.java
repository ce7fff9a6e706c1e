package mcp.server.internal;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import mcp.protocol.ResultType;
import mcp.server.InputRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The multi round-trip requests of the stateless revision, on the server side. A call whose handler asks for input
 * the client has not sent is answered {@code input_required}: the open rounds' requests, and a {@code requestState}
 * ({@link RequestStates}) that names the call, which stays here, its handler still running, until the client's retry
 * brings the answers (or {@code ServerLimits.inputWait} passes: then it is cancelled). The retry's answers complete
 * the rounds, and the call's next step (its result, or another round) answers the retry.
 *
 * <p>Bounds: at most {@code ServerLimits.maxPendingInputs} calls wait for input at once, counted together with the
 * requests of the handshake era waiting for a client's answer ({@link #reserve()}); one more fails its ask at once.
 *
 * <p>State: {@link #waiting} holds the calls between rounds, keyed by the id their state names; each call's round
 * fields are guarded by its own lock.
 */
final class InputRounds {

    private final ServerCore core;
    private final RequestStates states;
    private final Map<String, Call> waiting = new ConcurrentHashMap<>();
    /** The waits for a client's input that may still begin: {@code ServerLimits.maxPendingInputs} in all. */
    private final Semaphore reserved;
    private final SecureRandom random = new SecureRandom();
    /** This server instance's id in the states it seals: a retry that names another instance ran elsewhere. */
    final String instance;

    InputRounds(ServerCore core, mcp.server.ReplicaKeys keys) {
        this.core = core;
        this.states = new RequestStates(keys);
        byte[] bytes = new byte[12];
        random.nextBytes(bytes);
        this.instance = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        this.reserved = new Semaphore(core.limits.maxPendingInputs());
    }

    /** @return whether one more wait for a client's input fits the bound (then {@link #release()} it once) */
    boolean reserve() {
        return reserved.tryAcquire();
    }

    void release() {
        reserved.release();
    }

    /** @return the calls waiting for a retry now */
    int waiting() {
        return waiting.size();
    }

    /** A round asked by a call of the stateless revision; answered from the call's presets where it can be. */
    CompletableFuture<Map<String, JsonNode>> ask(Call call, LinkedHashMap<String, InputRequest> requests) {
        synchronized (call.lock) {
            Map<String, JsonNode> answers = new HashMap<>();
            Map<String, InputRequest> missing = new LinkedHashMap<>();
            requests.forEach((key, request) -> {
                JsonNode preset = call.presets.get(key);
                if (preset != null) {
                    answers.put(key, preset);
                } else {
                    missing.put(key, request);
                }
            });
            if (missing.isEmpty()) {
                return CompletableFuture.completedFuture(answers);
            }
            Call.Round round = new Call.Round(missing, answers);
            call.open.add(round);
            call.asked.complete(null);
            return round.future;
        }
    }

    /** Watches a call whose handler runs: its result, or a round it asks, answers the request of its current round. */
    void drive(Call call) {
        CompletableFuture<Void> asked;
        synchronized (call.lock) {
            asked = call.asked;
        }
        CompletableFuture.anyOf(call.result, asked).whenComplete((ignored, error) -> step(call));
    }

    private void step(Call call) {
        if (call.result.isDone() || call.cancelled()) {
            if (call.taskRequired) {
                // A tool that runs only as a task ended before it became one: its answer is a task already complete.
                core.becomeTask(call);
            }
            core.finish(call);
            return;
        }
        boolean anyMissing;
        synchronized (call.lock) {
            anyMissing = call.open.stream().anyMatch(round -> !round.missing.isEmpty());
        }
        if (anyMissing) {
            requireInput(call);
        } else {
            drive(call);
        }
    }

    /** Answers the call's current request {@code input_required} with every key still missing, and waits for a retry. */
    private void requireInput(Call call) {
        Channel channel;
        RequestId id;
        ObjectNode result = null;
        synchronized (call.lock) {
            if (call.cancelled() || call.channel == null) {
                return;
            }
            channel = call.channel;
            id = call.roundId;
            call.channel = null;
            boolean held = call.waitingId != null || reserve();
            if (held) {
                if (call.waitingId == null) {
                    byte[] bytes = new byte[18];
                    random.nextBytes(bytes);
                    call.waitingId = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
                    waiting.put(call.waitingId, call);
                }
                call.round++;
                long wait = core.limits.inputWait().toMillis();
                if (call.expiry != null) {
                    call.expiry.cancel(false);
                }
                call.expiry = core.threads.timer.schedule(() -> expire(call), wait, TimeUnit.MILLISECONDS);
                Map<String, JsonNode> carried = new LinkedHashMap<>(call.presets);
                carried.putAll(call.given);
                String state = states.seal(new RequestStates.State(call.waitingId, call.round,
                        System.currentTimeMillis() + wait, call.method, call.subject(), instance, carried));
                result = McpJson.object().put(ResultType.KEY, ResultType.INPUT_REQUIRED.wire());
                ObjectNode inputRequests = result.putObject("inputRequests");
                for (Call.Round round : call.open) {
                    round.missing.forEach((key, request) -> inputRequests.set(key, request.toJson()));
                }
                result.put("requestState", state);
                call.asked = new CompletableFuture<>();
            }
        }
        if (result == null) {
            call.cancel("too many requests wait for input");
            core.answerError(channel, id, call, new McpProtocolException(JsonRpcError.INTERNAL_ERROR, "Server busy: "
                    + core.limits.maxPendingInputs() + " requests already wait for a client's input", null));
            return;
        }
        channel.finish(new JsonRpcSuccess(id, result), 200);
    }

    /**
     * The answers a retry brings to run its request again, when its state is good but was sealed by another instance
     * (a replica behind the same balancer, or one that died): the call does not wait here, so, as the stateless
     * revision intends, the request runs again, its handler's questions answered from what the state carries and
     * what the retry brings.
     *
     * @return the answers so far, empty when the state is this instance's (then {@link #retry} serves it)
     * @throws McpProtocolException {@code -32602} for a state that fails its check, has expired, or belongs to
     *     another request
     */
    Optional<Map<String, JsonNode>> elsewhere(String token, Map<String, JsonNode> responses, String method,
            String subject) {
        RequestStates.State state = states.open(token, method, subject, System.currentTimeMillis());
        if (state.instance().equals(instance)) {
            return Optional.empty();
        }
        Map<String, JsonNode> answers = new LinkedHashMap<>(state.answers());
        answers.putAll(responses);
        return Optional.of(answers);
    }

    /**
     * A retry of a waiting call: its state is checked, its answers complete the open rounds, and the call's next
     * step answers it.
     *
     * @return the call
     *
     * @throws McpProtocolException {@code -32602} for a state that fails its check, has expired, names no waiting
     *     call, or is of an earlier round
     */
    Call retry(String token, Map<String, JsonNode> responses, String method, String subject, RequestId id,
            Channel channel) {
        RequestStates.State state = states.open(token, method, subject, System.currentTimeMillis());
        Call call = waiting.get(state.call());
        if (call == null) {
            throw RequestStates.invalid("requestState names a request this server no longer holds (it ended, expired "
                    + "or was cancelled): send the request again without it");
        }
        List<Call.Round> answered = new ArrayList<>();
        boolean anyMissing;
        synchronized (call.lock) {
            if (call.channel != null) {
                throw RequestStates.invalid("a retry of this request is already in progress");
            }
            if (state.round() != call.round) {
                throw RequestStates.invalid("requestState is of an earlier round of this request");
            }
            if (call.expiry != null) {
                call.expiry.cancel(false);
                call.expiry = null;
            }
            call.channel = channel;
            call.roundId = id;
            for (Iterator<Call.Round> it = call.open.iterator(); it.hasNext();) {
                Call.Round round = it.next();
                round.missing.keySet().removeIf(key -> {
                    JsonNode answer = responses.get(key);
                    if (answer != null) {
                        round.answers.put(key, answer);
                        call.given.put(key, answer);
                        return true;
                    }
                    return false;
                });
                if (round.missing.isEmpty()) {
                    it.remove();
                    answered.add(round);
                }
            }
            anyMissing = !call.open.isEmpty();
        }
        core.watchChannel(call, channel);
        // Off the transport's thread: a handler waiting for the answers goes on at once, on the completing thread.
        answered.forEach(round -> core.threads.workers.execute(() -> round.future.complete(Map.copyOf(round.answers))));
        if (anyMissing) {
            requireInput(call);
        } else {
            drive(call);
        }
        return call;
    }

    /** No retry came in time: the call is cancelled. */
    private void expire(Call call) {
        synchronized (call.lock) {
            if (call.channel != null) {
                return;
            }
        }
        call.cancel("the client sent no input within " + core.limits.inputWait().toMillis() + " ms");
    }

    /** The call ended (answered, failed or cancelled): it waits no more. */
    void forget(Call call) {
        synchronized (call.lock) {
            if (call.expiry != null) {
                call.expiry.cancel(false);
                call.expiry = null;
            }
            if (call.waitingId != null && waiting.remove(call.waitingId, call)) {
                release();
            }
        }
    }
}
