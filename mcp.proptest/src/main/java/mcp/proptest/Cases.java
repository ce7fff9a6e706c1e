package mcp.proptest;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs a property over generated cases. Each case draws its values from a {@link Gen} seeded with a
 * seed of its own; when a case fails, the error names that seed and the Maven command that runs the
 * one case again, so a failure seen once can always be replayed.
 *
 * <pre>{@code
 * @Test
 * void roundTrips() {
 *     Cases.run(500, gen -> {
 *         Message message = messages(gen);
 *         assertEquals(message, codec.decode(codec.encode(message)));
 *     });
 * }
 * }</pre>
 *
 * <p>System properties (Surefire passes {@code -D} options of the {@code mvn} command on):
 * <ul>
 *   <li>{@value #SEED}: run only the case of this seed (decimal or {@code 0x} hex), as a failure prints it;</li>
 *   <li>{@value #RUN_SEED}: the seed the cases of this run derive from (default: a new one each run, so
 *       that every run tries other cases);</li>
 *   <li>{@value #FACTOR}: run this many times the cases each property states (a longer soak), default 1.</li>
 * </ul>
 * Nothing is printed while cases pass.
 */
public final class Cases {

    /** The system property that replays one case: the seed a failure printed. */
    public static final String SEED = "mcp.seed";
    /** The system property that fixes the seed a whole run derives its cases' seeds from. */
    public static final String RUN_SEED = "mcp.seed.run";
    /** The system property that multiplies every property's number of cases. */
    public static final String FACTOR = "mcp.cases.factor";

    /** A property: checks one case, throwing (an assertion error, or any other exception) when it does not hold. */
    @FunctionalInterface
    public interface Property {
        /** Checks the case that {@code gen} draws. */
        void check(Gen gen) throws Exception;
    }

    private Cases() {
    }

    /**
     * Checks {@code property} on {@code cases} generated cases (times {@value #FACTOR}), or on the one
     * case of {@value #SEED} when it is set.
     *
     * @return the number of cases checked, for a property that also checks how often its generator
     *         reached an outcome (only meaningful over many cases: 1 when a seed is replayed)
     * @throws AssertionError for the first case that fails, naming its seed and the command to replay it,
     *         with the property's own error as the cause
     */
    public static int run(int cases, Property property) {
        Objects.requireNonNull(property, "property");
        if (cases < 1) {
            throw new IllegalArgumentException("cases must be at least 1: " + cases);
        }
        StackWalker.StackFrame caller = caller();
        String replay = System.getProperty(SEED, "").trim();
        if (!replay.isEmpty()) {
            check(caller, property, parseSeed(replay), 0, 1);
            return 1;
        }
        String runSeedText = System.getProperty(RUN_SEED, "").trim();
        long runSeed = runSeedText.isEmpty() ? ThreadLocalRandom.current().nextLong() : parseSeed(runSeedText);
        int total = Math.multiplyExact(cases, Math.max(1, Integer.getInteger(FACTOR, 1)));
        for (int i = 0; i < total; i++) {
            check(caller, property, caseSeed(runSeed, i), i, total);
        }
        return total;
    }

    /** The seed of case {@code index} of a run: well spread even for neighbouring run seeds and indexes. */
    static long caseSeed(long runSeed, int index) {
        long z = runSeed + (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static void check(StackWalker.StackFrame caller, Property property, long seed, int index, int total) {
        Gen gen = new Gen(seed);
        try {
            property.check(gen);
        } catch (Throwable failure) {
            if (failure instanceof VirtualMachineError error) {
                throw error;
            }
            throw new AssertionError(report(caller, seed, index, total, gen, failure), failure);
        }
    }

    private static String report(StackWalker.StackFrame caller, long seed, int index, int total, Gen gen,
            Throwable failure) {
        Class<?> type = caller.getDeclaringClass();
        String test = type.getSimpleName() + "#" + caller.getMethodName();
        String module = type.getModule().isNamed() ? type.getModule().getName() : null;
        StringBuilder report = new StringBuilder()
                .append(test).append(" failed at case ").append(index + 1).append(" of ").append(total)
                .append(", seed ").append(hex(seed)).append(":\n  ").append(failure)
                .append("\n  Replay this case alone: mvn -B ")
                .append(module == null ? "" : "-pl " + module + " -am ")
                .append("test -Dsurefire.failIfNoSpecifiedTests=false -Dtest=").append(test)
                .append(" -D").append(SEED).append('=').append(hex(seed));
        if (!gen.notes().isEmpty()) {
            report.append("\n  Notes of the case:");
            gen.notes().forEach(note -> report.append("\n    ").append(note));
        }
        return report.toString();
    }

    /** The test method that runs the property: the first frame outside this class, lambdas, JUnit and the JDK. */
    private static StackWalker.StackFrame caller() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .filter(f -> f.getDeclaringClass() != Cases.class && !f.getMethodName().startsWith("lambda$")
                        && !f.getClassName().startsWith("org.junit.") && !f.getClassName().startsWith("java."))
                .findFirst()).orElseThrow();
    }

    static String hex(long seed) {
        return "0x" + Long.toHexString(seed);
    }

    static long parseSeed(String text) {
        try {
            String digits = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : null;
            return digits != null ? Long.parseUnsignedLong(digits, 16) : Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Not a seed (decimal or 0x hex): \"" + text + "\"", e);
        }
    }
}
