package mcp.search.internal;

/**
 * A text whose reads are counted against a budget shared by one regex search: {@link java.util.regex}
 * reads its input only through {@link CharSequence#charAt}, so counting reads bounds the work of any
 * pattern, catastrophic backtracking included, without a thread to interrupt it.
 */
final class BoundedText implements CharSequence {

    /** The step budget of one search. Not thread-safe: one search, one thread. */
    static final class Budget {
        private final long limit;
        private long used;

        Budget(long limit) {
            this.limit = limit;
        }

        void step() {
            if (++used > limit) {
                throw Exhausted.INSTANCE;
            }
        }

        long used() {
            return used;
        }
    }

    /** Thrown when the budget is spent; carries no stack trace (it is control flow). */
    static final class Exhausted extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Exhausted INSTANCE = new Exhausted();

        private Exhausted() {
            super("regex step budget spent", null, false, false);
        }
    }

    private final String text;
    private final int from;
    private final int to;
    private final Budget budget;

    BoundedText(String text, Budget budget) {
        this(text, 0, text.length(), budget);
    }

    private BoundedText(String text, int from, int to, Budget budget) {
        this.text = text;
        this.from = from;
        this.to = to;
        this.budget = budget;
    }

    @Override
    public int length() {
        return to - from;
    }

    @Override
    public char charAt(int index) {
        budget.step();
        return text.charAt(from + index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return new BoundedText(text, from + start, from + end, budget);
    }

    @Override
    public String toString() {
        return text.substring(from, to);
    }
}
