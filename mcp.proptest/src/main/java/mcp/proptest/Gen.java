package mcp.proptest;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The values of one generated case, all drawn from one seed: the same seed draws the same values.
 * Edge values are mixed in at about one draw in eight: bounds, zero, {@code MIN_VALUE}/{@code MAX_VALUE},
 * empty and longest strings and lists; strings draw from all of UTF-16 (control characters, escapes,
 * supplementary characters and lone surrogates included) unless an alphabet is given.
 *
 * <p>Compose generators as plain methods that take a {@code Gen}; {@link #weighted} picks among
 * alternatives with a {@code switch}:
 * <pre>{@code
 * JsonNode json(Gen gen, int depth) {
 *     return switch (gen.weighted(4, depth > 0 ? 1 : 0)) {
 *         case 0 -> NODES.stringNode(gen.string(0, 20));
 *         default -> array(gen.list(0, 4, () -> json(gen, depth - 1)));
 *     };
 * }
 * }</pre>
 */
public final class Gen {

    private static final int EDGE_ONE_IN = 8;
    private static final String SPECIAL_CHARS = "\"\\/\n\r\t\u0000\u001f\u007f\u0085\u00a0\u2028\u2029\ufeff\ufffd\uffff${}:";

    private static final byte[] EDGE_BYTES = {0, (byte) 0xff, 0x7f, (byte) 0x80, '\n', '\r', '{', '"'};

    private final long seed;
    private final SplittableRandom random;
    private final List<String> notes = new ArrayList<>();

    /** A generator drawing from {@code seed}. */
    public Gen(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /** The seed this case draws from. */
    public long seed() {
        return seed;
    }

    /** Adds a line to the failure report of this case (the steps of a stateful case, say). */
    public void note(Object note) {
        notes.add(String.valueOf(note));
    }

    /** The notes added so far. */
    public List<String> notes() {
        return List.copyOf(notes);
    }

    // ---- choices ----

    /** True with probability {@code p}. */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    /** True or false, evenly. */
    public boolean bool() {
        return random.nextBoolean();
    }

    /** The index of one weight, drawn in proportion to the weights (a weight of 0 is never drawn). */
    public int weighted(int... weights) {
        int total = Arrays.stream(weights).sum();
        if (total <= 0) {
            throw new IllegalArgumentException("no positive weight: " + Arrays.toString(weights));
        }
        int r = random.nextInt(total);
        for (int i = 0; i < weights.length; i++) {
            r -= weights[i];
            if (r < 0) {
                return i;
            }
        }
        throw new AssertionError("unreachable");
    }

    /** One of the values, evenly. */
    @SafeVarargs
    public final <T> T pick(T... values) {
        return values[random.nextInt(values.length)];
    }

    /** One element of a non-empty collection, evenly. */
    public <T> T pick(Collection<T> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("nothing to pick from");
        }
        List<T> list = values instanceof List<T> l ? l : new ArrayList<>(values);
        return list.get(random.nextInt(list.size()));
    }

    /** The value of one of the suppliers, evenly. */
    @SafeVarargs
    public final <T> T oneOf(Supplier<? extends T>... suppliers) {
        return suppliers[random.nextInt(suppliers.length)].get();
    }

    /** The supplier's value with probability {@code present}, else empty. */
    public <T> Optional<T> optional(double present, Supplier<T> value) {
        return chance(present) ? Optional.of(value.get()) : Optional.empty();
    }

    /** Null with probability {@code p}, else the supplier's value. */
    public <T> T nullOr(double p, Supplier<T> value) {
        return chance(p) ? null : value.get();
    }

    // ---- numbers ----

    /** An int in {@code [min, max]}, its bounds (and zero, when in range) as edge values. */
    public int ints(int min, int max) {
        if (min > max) {
            throw new IllegalArgumentException(min + " > " + max);
        }
        if (edge()) {
            return pick(min, max, min <= 0 && 0 <= max ? 0 : min);
        }
        return (int) random.nextLong(min, (long) max + 1);
    }

    /** Any int, with 0, ±1 and the extremes as edge values. */
    public int anyInt() {
        return edge() ? pick(0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE) : random.nextInt();
    }

    /** A long in {@code [min, max]}, its bounds (and zero, when in range) as edge values. */
    public long longs(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException(min + " > " + max);
        }
        if (edge()) {
            return pick(min, max, min <= 0 && 0 <= max ? 0 : min);
        }
        if (max < Long.MAX_VALUE) {
            return random.nextLong(min, max + 1);
        }
        return min == Long.MIN_VALUE ? random.nextLong() : random.nextLong(min - 1, max) + 1;
    }

    /** Any long; small values, the int and long extremes and their neighbours as edge values. */
    public long anyLong() {
        if (edge()) {
            return pick(0L, 1L, -1L, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
                    Integer.MIN_VALUE - 1L, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        // Half the time a small magnitude, so that both the int and the long ranges are well covered.
        return bool() ? random.nextLong() : random.nextLong(-100_000, 100_001);
    }

    /** Any finite double; zero of both signs, the extremes and the smallest values as edge values. */
    public double anyDouble() {
        if (edge()) {
            return pick(0.0, -0.0, 1.0, -1.0, 0.5, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE,
                    -Double.MAX_VALUE, Double.MIN_NORMAL);
        }
        return switch (weighted(2, 1, 1)) {
            case 0 -> random.nextDouble(-1000, 1000);
            case 1 -> (bool() ? 1 : -1) * random.nextDouble() * Math.pow(10, random.nextInt(-300, 301));
            default -> random.nextLong(-1_000_000, 1_000_000);
        };
    }

    /** A double in {@code [0, 1]}, with 0 and 1 as edge values. */
    public double fraction() {
        return edge() ? pick(0.0, 1.0) : random.nextDouble();
    }

    // ---- text and bytes ----

    /** Any UTF-16 text of {@code min..max} chars: control characters, escapes, supplementary characters, lone surrogates. */
    public String string(int min, int max) {
        return text(min, max, true);
    }

    /** Text of {@code min..max} chars that is well-formed UTF-16: no lone surrogate. */
    public String wellFormedString(int min, int max) {
        return text(min, max, false);
    }

    private String text(int min, int max, boolean loneSurrogates) {
        int length = ints(min, max);
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            appendChar(text, length - text.length() >= 2, loneSurrogates);
        }
        return text.toString();
    }

    /** Text of {@code min..max} letters of the alphabet, each a code point (a supplementary character counts once). */
    public String string(String alphabet, int min, int max) {
        int[] letters = alphabet.codePoints().toArray();
        int length = ints(min, max);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.appendCodePoint(letters[random.nextInt(letters.length)]);
        }
        return text.toString();
    }


    private void appendChar(StringBuilder text, boolean roomForPair, boolean loneSurrogates) {
        switch (weighted(40, 8, 10, 15, 12, roomForPair ? 10 : 0, loneSurrogates ? 5 : 0)) {
            case 0 -> text.append((char) random.nextInt(' ', '~' + 1));
            case 1 -> text.append((char) (random.nextInt(33) == 32 ? 0x7f : random.nextInt(32)));
            case 2 -> text.append((char) random.nextInt(0x80, 0x250));
            case 3 -> {
                char c = (char) random.nextInt(0x10000);
                text.append(!loneSurrogates && Character.isSurrogate(c) ? '\ufffd' : c);
            }
            case 4 -> text.append(SPECIAL_CHARS.charAt(random.nextInt(SPECIAL_CHARS.length())));
            case 5 -> text.appendCodePoint(random.nextInt(0x10000, Character.MAX_CODE_POINT + 1));
            default -> text.append((char) random.nextInt(Character.MIN_SURROGATE, Character.MAX_SURROGATE + 1));
        }
    }

    /** Any {@code min..max} bytes. */
    public byte[] bytes(int min, int max) {
        byte[] bytes = new byte[ints(min, max)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = edge() ? EDGE_BYTES[random.nextInt(EDGE_BYTES.length)] : (byte) random.nextInt(256);
        }
        return bytes;
    }

    // ---- collections ----

    /** A list of {@code min..max} elements of the supplier. */
    public <T> List<T> list(int min, int max, Supplier<? extends T> element) {
        int size = ints(min, max);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.get());
        }
        return list;
    }

    /**
     * A list of up to {@code max} elements with distinct keys: elements whose key was drawn before are
     * drawn again, a bounded number of times, so the list may come out shorter when keys are few.
     */
    public <T> List<T> uniqueList(int min, int max, Function<? super T, ?> key, Supplier<? extends T> element) {
        int size = ints(min, max);
        Set<Object> keys = new LinkedHashSet<>();
        List<T> list = new ArrayList<>(size);
        for (int tries = 0; list.size() < size && tries < size * 10 + 10; tries++) {
            T value = element.get();
            if (keys.add(key.apply(value))) {
                list.add(value);
            }
        }
        if (list.size() < min) {
            throw new IllegalStateException("could not draw " + min + " elements with distinct keys");
        }
        return list;
    }

    /** A set of up to {@code max} distinct elements (at least {@code min}, which the supplier must allow). */
    public <T> Set<T> set(int min, int max, Supplier<? extends T> element) {
        return new LinkedHashSet<>(uniqueList(min, max, Function.identity(), element));
    }

    /** A map of up to {@code max} entries with distinct keys, in the order drawn. */
    public <K, V> Map<K, V> map(int min, int max, Supplier<? extends K> key, Supplier<? extends V> value) {
        Map<K, V> map = new LinkedHashMap<>();
        for (K k : uniqueList(min, max, Function.identity(), key)) {
            map.put(k, value.get());
        }
        return map;
    }

    /** A {@link Random} seeded from this case, for APIs that take one ({@code Collections.shuffle}). */
    public Random random() {
        return new Random(random.nextLong());
    }

    private boolean edge() {
        return random.nextInt(EDGE_ONE_IN) == 0;
    }

    @Override
    public String toString() {
        return "Gen[seed " + Cases.hex(seed) + "]";
    }
}
