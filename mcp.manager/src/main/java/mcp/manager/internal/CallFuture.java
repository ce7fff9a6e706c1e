package mcp.manager.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a request, of a tool call and of everything chained on them with the non-async and
 * async methods alike ({@link #newIncompleteFuture()}): a plain {@link CompletableFuture} that, before
 * a blocking {@code get} or {@code join} on a future not yet done, tells the transport whose response
 * the current thread may be completing ({@link ClientSession#blockingHere()}). So code chained on a
 * response that waits for another one, even from the same server, lets that transport read on at once
 * rather than after its watchdog's delay.
 *
 * @param <T> the value type
 */
public final class CallFuture<T> extends CompletableFuture<T> {

    /** Creates an incomplete future. */
    public CallFuture() {
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CallFuture<>();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        aboutToWait();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        aboutToWait();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        aboutToWait();
        return super.join();
    }

    private void aboutToWait() {
        if (!isDone()) {
            ClientSession.blockingHere();
        }
    }
}
