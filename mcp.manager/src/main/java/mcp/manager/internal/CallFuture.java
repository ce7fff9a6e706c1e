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

    /**
     * @param hook runs before this future completes, on the completing thread, and before any dependent: a
     *     request's span then ends before its caller sees the response, as a span covers the time until the
     *     response is received. Runs at most once per completion attempt on a future not yet done.
     */
    void beforeCompletion(java.util.function.BiConsumer<? super T, ? super Throwable> hook) {
        this.beforeCompletion = hook;
    }

    private volatile java.util.function.BiConsumer<? super T, ? super Throwable> beforeCompletion;

    @Override
    public boolean complete(T value) {
        before(value, null);
        return super.complete(value);
    }

    @Override
    public boolean completeExceptionally(Throwable error) {
        before(null, error);
        return super.completeExceptionally(error);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        before(null, new java.util.concurrent.CancellationException());
        return super.cancel(mayInterruptIfRunning);
    }

    private void before(T value, Throwable error) {
        java.util.function.BiConsumer<? super T, ? super Throwable> hook = beforeCompletion;
        if (hook != null && !isDone()) {
            hook.accept(value, error);
        }
    }

    private void aboutToWait() {
        if (!isDone()) {
            ClientSession.blockingHere();
        }
    }
}
