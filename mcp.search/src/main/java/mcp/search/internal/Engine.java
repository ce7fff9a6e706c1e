package mcp.search.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import mcp.search.Hit;
import mcp.search.IndexedTool;

/**
 * The tool index behind {@link mcp.search.ToolIndex}: an inverted index with one posting list per
 * term and server, scored with BM25F (field-weighted term frequencies, each normalised by its field's
 * length, then one saturation), plus name matches and a bounded regex mode.
 *
 * <p>State and invariants, all guarded by {@link #lock} (searches read, put and remove write):
 * <ul>
 *   <li>{@link #docs} holds every live tool at its doc id; free ids are in {@link #free} and their
 *       slot is {@code null}. {@link #live} counts the live ones.
 *   <li>each server's tools are one {@link Segment}; for every term of a segment, its posting array
 *       is in that term's {@link TermEntry} (and nowhere else), and the entry's {@code df} is the
 *       number of live docs holding the term. An entry with no postings is removed.
 *   <li>{@link #lengthTotals} is the sum of the field lengths of the live docs; {@link #nameTerms}
 *       counts, per term, the live docs whose name holds it (the vocabulary of prefix matches);
 *       {@link #nameKeys} maps each live doc's normalised name to its ids.
 * </ul>
 * A put analyses its tools before it takes the lock, so searches wait only for the splice.
 */
public final class Engine {

    /** Field numbers, in the order of {@link mcp.search.ToolIndex.Field}. */
    public static final int NAME = 0;
    /** The title field. */
    public static final int TITLE = 1;
    /** The description field. */
    public static final int DESCRIPTION = 2;
    /** The parameter names field. */
    public static final int PARAM_NAMES = 3;
    /** The parameter descriptions field. */
    public static final int PARAM_DESCRIPTIONS = 4;
    /** The server name field. */
    public static final int SERVER = 5;
    /** The number of fields. */
    public static final int FIELDS = 6;
    /** A posting: the doc id, then one term frequency per field. */
    private static final int STRIDE = FIELDS + 1;

    /** The bonus of a tool whose whole name (or id) is the query: it ranks above any text match. */
    static final double EXACT_NAME_BONUS = 1000;
    /** The bonus of a tool whose name starts with the whole query (typing a name). */
    static final double NAME_PREFIX_BONUS = 10;
    /** Prefix matches of a query term in the names' vocabulary, at most this many per term. */
    private static final int MAX_PREFIX_EXPANSIONS = 8;

    /**
     * The settings of an index.
     *
     * @param analyzer the text analysis
     * @param thesaurus the synonym groups (empty for none)
     * @param weights the weight of each field
     * @param b the length normalisation of each field (0 none, 1 full)
     * @param k1 the term frequency saturation
     * @param synonymWeight the weight of a thesaurus alternative relative to the user's own word
     * @param prefixWeight the weight of a prefix expansion (0 turns them off)
     * @param nameMatches whether whole-name exact and prefix matches get their bonus
     * @param singleField whether all fields are scored as one text (plain BM25, for comparison)
     * @param regexSteps the character reads one regex search may spend
     */
    public record Config(TextAnalyzer analyzer, Thesaurus thesaurus, double[] weights, double[] b, double k1,
            double synonymWeight, double prefixWeight, boolean nameMatches, boolean singleField, long regexSteps) {
        /** Copies the arrays. */
        public Config {
            weights = weights.clone();
            b = b.clone();
        }
    }

    private record Doc(IndexedTool tool, int[] lengths, String nameKey, String idKey) {
    }

    private static final class Segment {
        final List<Doc> tools;
        final Map<String, int[]> postings;
        int[] ids;

        Segment(List<Doc> tools, Map<String, int[]> postings) {
            this.tools = tools;
            this.postings = postings;
        }
    }

    private static final class TermEntry {
        int df;
        final List<int[]> lists = new ArrayList<>(2);
    }

    /**
     * One alternative of a query group: terms scored together, and its weight.
     *
     * @param terms the index terms
     * @param weight the weight relative to the user's own words
     * @param needsAll whether a tool must hold every term (a multi-word synonym)
     * @param literal whether these are the words the user wrote (else an expansion: a synonym or a
     *     longer name word)
     */
    record Alternative(List<String> terms, double weight, boolean needsAll, boolean literal) {
    }

    private final Config config;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private Doc[] docs = new Doc[64];
    private int high;
    private final java.util.ArrayDeque<Integer> free = new java.util.ArrayDeque<>();
    private int live;
    private final Map<String, Segment> segments = new LinkedHashMap<>();
    private final Map<String, TermEntry> terms = new HashMap<>();
    private final long[] lengthTotals = new long[FIELDS];
    private final TreeMap<String, Integer> nameTerms = new TreeMap<>();
    private final Map<String, List<Integer>> nameKeys = new HashMap<>();

    /**
     * An empty index.
     *
     * @param config its settings
     */
    public Engine(Config config) {
        this.config = config;
    }

    /**
     * The settings.
     *
     * @return the settings of this index
     */
    public Config config() {
        return config;
    }

    // ---- updates

    /**
     * Replaces one server's tools.
     *
     * @param server the server
     * @param tools its tools, each with that server and a distinct id
     */
    public void put(String server, Collection<IndexedTool> tools) {
        Segment segment = analyse(server, tools);
        lock.writeLock().lock();
        try {
            removeLocked(server);
            if (!segment.tools.isEmpty()) {
                addLocked(server, segment);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Drops one server's tools.
     *
     * @param server the server
     * @return whether it had any
     */
    public boolean remove(String server) {
        lock.writeLock().lock();
        try {
            return removeLocked(server);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * The number of tools.
     *
     * @return the live tool count
     */
    public int size() {
        lock.readLock().lock();
        try {
            return live;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The servers with tools.
     *
     * @return their names, sorted
     */
    public Set<String> servers() {
        lock.readLock().lock();
        try {
            return new TreeSet<>(segments.keySet());
        } finally {
            lock.readLock().unlock();
        }
    }

    private Segment analyse(String server, Collection<IndexedTool> tools) {
        TextAnalyzer analyzer = config.analyzer();
        List<Doc> analysed = new ArrayList<>(tools.size());
        Map<String, int[]> postings = new HashMap<>();
        Set<String> ids = new HashSet<>();
        List<String> serverTerms = analyzer.terms(server);
        for (IndexedTool tool : tools) {
            if (!tool.server().equals(server)) {
                throw new IllegalArgumentException("tool " + tool.id() + " belongs to server '" + tool.server()
                        + "', not to '" + server + "'");
            }
            if (!ids.add(tool.id())) {
                throw new IllegalArgumentException("two tools of server '" + server + "' have the id " + tool.id());
            }
            List<List<String>> fields = new ArrayList<>(FIELDS);
            fields.add(analyzer.terms(tool.name()));
            fields.add(analyzer.terms(tool.title()));
            fields.add(analyzer.terms(tool.description()));
            List<String> paramNames = new ArrayList<>();
            List<String> paramDescriptions = new ArrayList<>();
            for (IndexedTool.Param param : tool.params()) {
                paramNames.addAll(analyzer.terms(param.name()));
                paramDescriptions.addAll(analyzer.terms(param.description()));
            }
            fields.add(paramNames);
            fields.add(paramDescriptions);
            fields.add(serverTerms);
            if (config.singleField()) {
                List<String> all = new ArrayList<>();
                fields.forEach(all::addAll);
                fields.replaceAll(f -> List.of());
                fields.set(DESCRIPTION, all);
            }
            int local = analysed.size();
            int[] lengths = new int[FIELDS];
            Map<String, int[]> tfs = new LinkedHashMap<>();
            for (int f = 0; f < FIELDS; f++) {
                lengths[f] = fields.get(f).size();
                for (String term : fields.get(f)) {
                    tfs.computeIfAbsent(term, t -> new int[FIELDS])[f]++;
                }
            }
            for (Map.Entry<String, int[]> e : tfs.entrySet()) {
                int[] old = postings.get(e.getKey());
                int at = old == null ? 0 : old.length;
                int[] grown = old == null ? new int[STRIDE] : Arrays.copyOf(old, at + STRIDE);
                grown[at] = local;
                System.arraycopy(e.getValue(), 0, grown, at + 1, FIELDS);
                postings.put(e.getKey(), grown);
            }
            analysed.add(new Doc(tool, lengths, key(tool.name()), key(tool.id())));
        }
        return new Segment(analysed, postings);
    }

    /** A name as typed, whatever its separators and case: lowercase letters and digits only. */
    static String key(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isLetterOrDigit(c)) {
                b.append(Character.toLowerCase(c));
            }
        }
        return b.toString();
    }

    private void addLocked(String server, Segment segment) {
        int n = segment.tools.size();
        segment.ids = new int[n];
        for (int local = 0; local < n; local++) {
            int id = free.isEmpty() ? high++ : free.pop();
            if (id >= docs.length) {
                docs = Arrays.copyOf(docs, Math.max(id + 1, docs.length * 2));
            }
            Doc doc = segment.tools.get(local);
            docs[id] = doc;
            segment.ids[local] = id;
            for (int f = 0; f < FIELDS; f++) {
                lengthTotals[f] += doc.lengths()[f];
            }
            nameKeys.computeIfAbsent(doc.nameKey(), k -> new ArrayList<>(1)).add(id);
        }
        live += n;
        for (Map.Entry<String, int[]> e : segment.postings.entrySet()) {
            int[] list = e.getValue();
            int nameDocs = 0;
            for (int i = 0; i < list.length; i += STRIDE) {
                list[i] = segment.ids[list[i]];
                if (list[i + 1 + NAME] > 0) {
                    nameDocs++;
                }
            }
            TermEntry entry = terms.computeIfAbsent(e.getKey(), k -> new TermEntry());
            entry.lists.add(list);
            entry.df += list.length / STRIDE;
            if (nameDocs > 0) {
                nameTerms.merge(e.getKey(), nameDocs, Integer::sum);
            }
        }
        segments.put(server, segment);
    }

    private boolean removeLocked(String server) {
        Segment segment = segments.remove(server);
        if (segment == null) {
            return false;
        }
        for (Map.Entry<String, int[]> e : segment.postings.entrySet()) {
            int[] list = e.getValue();
            TermEntry entry = terms.get(e.getKey());
            entry.lists.removeIf(l -> l == list);
            entry.df -= list.length / STRIDE;
            if (entry.lists.isEmpty()) {
                terms.remove(e.getKey());
            }
            int nameDocs = 0;
            for (int i = 0; i < list.length; i += STRIDE) {
                if (list[i + 1 + NAME] > 0) {
                    nameDocs++;
                }
            }
            if (nameDocs > 0) {
                int left = nameTerms.merge(e.getKey(), -nameDocs, Integer::sum);
                if (left <= 0) {
                    nameTerms.remove(e.getKey());
                }
            }
        }
        for (int id : segment.ids) {
            Doc doc = docs[id];
            for (int f = 0; f < FIELDS; f++) {
                lengthTotals[f] -= doc.lengths()[f];
            }
            List<Integer> same = nameKeys.get(doc.nameKey());
            same.remove(Integer.valueOf(id));
            if (same.isEmpty()) {
                nameKeys.remove(doc.nameKey());
            }
            docs[id] = null;
            free.push(id);
        }
        live -= segment.ids.length;
        return true;
    }

    // ---- word search

    /**
     * The groups of a query: one per word or thesaurus phrase of it, each with its alternatives (the
     * word itself, its synonyms, its prefix matches in tool names). A document's score for a group is
     * its best alternative's, so a tool that says both "delete" and "remove" is not counted twice.
     */
    List<List<Alternative>> parse(String query) {
        TextAnalyzer analyzer = config.analyzer();
        Thesaurus thesaurus = config.thesaurus();
        // Values go with stop words: both say nothing about which tool (off for plain BM25).
        boolean dropValues = analyzer.stopWords();
        List<TextAnalyzer.Token> tokens = new ArrayList<>(analyzer.tokens(joinKnownNames(
                dropValues ? withoutValues(query) : query)));
        if (dropValues) {
            tokens.removeIf(Engine::isNumber);
        }
        boolean keepNumbers = !dropValues;
        if (dropValues && tokens.stream().allMatch(t -> analyzer.isStopWord(t.word()))) {
            // A query of values alone ("42", "'refund policy'") is searched as it is.
            tokens = analyzer.tokens(joinKnownNames(query));
            keepNumbers = true;
        }
        List<List<Alternative>> groups = new ArrayList<>();
        int i = 0;
        while (i < tokens.size()) {
            int length = 0;
            List<Integer> found = List.of();
            for (int n = Math.min(thesaurus.longest(), tokens.size() - i); n >= 1 && found.isEmpty(); n--) {
                StringBuilder joined = new StringBuilder();
                for (int j = i; j < i + n; j++) {
                    joined.append(j > i ? " " : "").append(tokens.get(j).term());
                }
                found = thesaurus.groupsOf(joined.toString());
                length = n;
            }
            if (found.isEmpty()) {
                TextAnalyzer.Token token = tokens.get(i);
                i++;
                if (analyzer.isStopWord(token.word()) || (!keepNumbers && isNumber(token))) {
                    continue;
                }
                List<Alternative> group = new ArrayList<>();
                group.add(new Alternative(List.of(token.term()), 1.0, false, true));
                addPrefixes(group, token.term());
                groups.add(group);
                continue;
            }
            List<String> own = new ArrayList<>();
            for (int j = i; j < i + length; j++) {
                if (!analyzer.isStopWord(tokens.get(j).word())) {
                    own.add(tokens.get(j).term());
                }
            }
            i += length;
            List<Alternative> group = new ArrayList<>();
            Set<List<String>> seen = new HashSet<>();
            if (!own.isEmpty()) {
                group.add(new Alternative(own, 1.0, false, true));
                seen.add(own);
            }
            for (int id : found) {
                for (Thesaurus.Phrase phrase : thesaurus.members(id)) {
                    if (phrase.searchable() && seen.add(phrase.terms())) {
                        group.add(new Alternative(phrase.terms(), config.synonymWeight(), true, false));
                    }
                }
            }
            if (own.size() == 1) {
                addPrefixes(group, own.get(0));
            }
            groups.add(group);
        }
        return groups;
    }

    /**
     * Quoted text ('buy milk', "refund policy"), e-mail addresses and URLs: the values a request
     * carries (what to write, whom to mail), which say nothing about which tool does it.
     */
    private static final Pattern VALUES = Pattern.compile(
            "(?<![\\p{L}\\p{N}])(['\"\u2018\u201c])[^'\"\u2018\u2019\u201c\u201d]+['\"\u2019\u201d](?![\\p{L}\\p{N}])"
                    + "|\\S+@\\S+\\.\\S+|\\b(?:https?|ftp)://\\S+");

    /** A word in camelCase: a lowercase letter followed by an uppercase one. */
    private static final Pattern CAMEL_WORD = Pattern.compile("\\b\\p{L}*\\p{Ll}\\p{Lu}\\p{L}*\\b");

    /**
     * Keeps a camelCase word of the query whole when the index knows it whole: users write product
     * names as their makers do ("HubSpot", "GitHub", "OneNote") while tool names and servers spell them
     * in one lowercase word ({@code hubspot-search-objects}); split, "hub" and "spot" would find neither.
     * A camelCase word the index does not know whole is split as usual ({@code getS3Object}).
     */
    private String joinKnownNames(String query) {
        TextAnalyzer analyzer = config.analyzer();
        if (!analyzer.splitIdentifiers()) {
            return query;
        }
        Matcher m = CAMEL_WORD.matcher(query);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String whole = m.group().toLowerCase(Locale.ROOT);
            m.appendReplacement(out, Matcher.quoteReplacement(terms.containsKey(analyzer.term(whole)) ? whole : m.group()));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * A file path ({@code /var/log/app.log}, {@code ~/Downloads}, {@code ./src/Main.java}, {@code C:\\Users}): a
     * value too, but one that says what the request works on, a file or a folder, which tools call a path.
     */
    private static final Pattern PATHS = Pattern.compile(
            "(?<![\\p{L}\\p{N}./~])(?:~|\\.{1,2})?/[^\\s/]+(?:/[^\\s/]*)*|\\b[A-Za-z]:\\\\\\S*");

    /**
     * A file name with a common extension ({@code notes.txt}, {@code Q3-budget.xlsx}): its base name is a value
     * of the request, like quoted text, but read as words it is taken for a product or a subject ("notes" finds
     * OneNote's notebooks before {@code read_file}). It is read as its type and the word "file" ("txt file").
     * A dotfile ({@code .gitlab-ci.yml}, {@code .env}) keeps its name: that name says which tool.
     */
    private static final Pattern FILE_NAMES = Pattern.compile("(?<![\\p{L}\\p{N}/~.@_-])[\\p{L}\\p{N}][\\p{L}\\p{N}_.-]*"
            + "\\.(txt|md|markdown|csv|tsv|json|ya?ml|xml|html?|css|py|java|go|rs|rb|php|sh|sql|log|pdf|docx?|xlsx?|pptx?"
            + "|png|jpe?g|gif|svg|webp|mp3|mp4|wav|mov|zip|tar|gz|tgz|toml|ini|cfg|conf|ipynb)(?![\\p{L}\\p{N}])",
            Pattern.CASE_INSENSITIVE);

    /**
     * The query without its values ({@link #VALUES}), a file path read as the words "file path", a file name
     * as its type and "file" ({@link #FILE_NAMES}).
     */
    static String withoutValues(String query) {
        String withoutPaths = PATHS.matcher(VALUES.matcher(query).replaceAll(" ")).replaceAll(" file path ");
        return FILE_NAMES.matcher(withoutPaths).replaceAll(" $1 file ");
    }

    /**
     * Counts written as words: like digits, they are a request's values ("log two hours", "a list
     * with three items") and would only match counts in unrelated descriptions.
     */
    private static final Set<String> NUMBER_WORDS = Set.of("two", "three", "four", "five", "six", "seven",
            "eight", "nine", "ten", "eleven", "twelve", "twenty", "thirty", "hundred", "thousand", "dozen");

    /**
     * Whether a query word is a number (an issue number, a count, a time, a version's parts): a value
     * of the request, dropped from the query before its phrases are read, so "log two hours" reads
     * as "log hours".
     */
    private static boolean isNumber(TextAnalyzer.Token token) {
        String word = token.word();
        if (NUMBER_WORDS.contains(word)) {
            return true;
        }
        for (int i = 0; i < word.length(); i++) {
            if (!Character.isDigit(word.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private void addPrefixes(List<Alternative> group, String term) {
        if (config.prefixWeight() <= 0 || term.length() < 3) {
            return;
        }
        int added = 0;
        for (String longer : nameTerms.subMap(term, false, term + Character.MAX_VALUE, false).keySet()) {
            if (added++ == MAX_PREFIX_EXPANSIONS) {
                break;
            }
            group.add(new Alternative(List.of(longer), config.prefixWeight(), false, false));
        }
    }

    /**
     * The best tools for a query in words.
     *
     * @param query the query
     * @param limit the most hits to return
     * @return the hits, best first
     */
    public List<Hit> search(String query, int limit) {
        lock.readLock().lock();
        try {
            if (live == 0) {
                return List.of();
            }
            List<List<Alternative>> groups = parse(query);
            int size = high;
            double[] total = new double[size];
            double[] best = new double[size];
            double[] sum = new double[size];
            int[] matched = new int[size];
            IntList totalTouched = new IntList();
            IntList groupTouched = new IntList();
            IntList altTouched = new IntList();
            double[] average = new double[FIELDS];
            for (int f = 0; f < FIELDS; f++) {
                average[f] = Math.max(1e-9, (double) lengthTotals[f] / live);
            }
            for (List<Alternative> group : groups) {
                double literalIdf = literalIdf(group);
                for (Alternative alternative : group) {
                    // An expansion never weighs more than the word the user wrote: a synonym or a longer
                    // name word is often rarer than the user's word, so its idf alone would lift a tool
                    // that says "fetch" above one that says the user's "read". Capped at the literal's
                    // idf, a literal match outranks an expansion-only match in the same field.
                    double cap = alternative.literal() || literalIdf < 0 ? 1
                            : Math.min(1, literalIdf / Math.max(1e-9, idfSum(alternative.terms())));
                    for (String term : alternative.terms()) {
                        TermEntry entry = terms.get(term);
                        if (entry == null) {
                            continue;
                        }
                        double idf = idf(entry.df);
                        for (int[] list : entry.lists) {
                            for (int p = 0; p < list.length; p += STRIDE) {
                                int d = list[p];
                                if (matched[d] == 0) {
                                    altTouched.add(d);
                                }
                                matched[d]++;
                                sum[d] += idf * saturate(list, p, docs[d].lengths(), average);
                            }
                        }
                    }
                    int need = alternative.needsAll() ? alternative.terms().size() : 1;
                    for (int k = 0; k < altTouched.size; k++) {
                        int d = altTouched.values[k];
                        if (matched[d] >= need) {
                            double v = sum[d] * alternative.weight() * cap;
                            if (best[d] == 0) {
                                groupTouched.add(d);
                            }
                            best[d] = Math.max(best[d], v);
                        }
                        sum[d] = 0;
                        matched[d] = 0;
                    }
                    altTouched.clear();
                }
                for (int k = 0; k < groupTouched.size; k++) {
                    int d = groupTouched.values[k];
                    if (total[d] == 0) {
                        totalTouched.add(d);
                    }
                    total[d] += best[d];
                    best[d] = 0;
                }
                groupTouched.clear();
            }
            if (config.nameMatches()) {
                addNameBonuses(query, total, totalTouched);
            }
            return top(total, totalTouched, limit);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The idf of a term held by {@code df} of the live tools (BM25's, never negative). */
    private double idf(int df) {
        return Math.log(1 + (live - df + 0.5) / (df + 0.5));
    }

    /** The idf of an alternative's terms, summed; a term the index does not hold counts as the rarest. */
    private double idfSum(List<String> alternativeTerms) {
        double sum = 0;
        for (String term : alternativeTerms) {
            TermEntry entry = terms.get(term);
            sum += idf(entry == null ? 0 : entry.df);
        }
        return sum;
    }

    /** The idf of a group's literal alternative (the user's own words), or -1 when it has none ("to do"). */
    private double literalIdf(List<Alternative> group) {
        for (Alternative alternative : group) {
            if (alternative.literal()) {
                return idfSum(alternative.terms());
            }
        }
        return -1;
    }

    /** BM25F: the field-weighted, length-normalised term frequency, saturated once. */
    private double saturate(int[] list, int p, int[] lengths, double[] average) {
        double tf = 0;
        for (int f = 0; f < FIELDS; f++) {
            int raw = list[p + 1 + f];
            if (raw > 0) {
                double b = config.b()[f];
                tf += config.weights()[f] * raw / (1 - b + b * lengths[f] / average[f]);
            }
        }
        return tf * (config.k1() + 1) / (config.k1() + tf);
    }

    private void addNameBonuses(String query, double[] total, IntList touched) {
        String typed = key(query);
        if (typed.isEmpty()) {
            return;
        }
        for (int d : nameKeys.getOrDefault(typed, List.of())) {
            bonus(total, touched, d, EXACT_NAME_BONUS);
        }
        if (typed.length() >= 3) {
            for (int k = 0; k < touched.size; k++) {
                int d = touched.values[k];
                Doc doc = docs[d];
                if (doc.idKey().equals(typed) && !doc.nameKey().equals(typed)) {
                    total[d] += EXACT_NAME_BONUS;
                } else if (doc.nameKey().startsWith(typed) && !doc.nameKey().equals(typed)) {
                    total[d] += NAME_PREFIX_BONUS;
                }
            }
        }
    }

    private static void bonus(double[] total, IntList touched, int d, double bonus) {
        if (total[d] == 0) {
            touched.add(d);
        }
        total[d] += bonus;
    }

    /** Whether doc a ranks before doc b: higher score, then smaller id. */
    private boolean before(double[] total, int a, int b) {
        return total[a] > total[b] || (total[a] == total[b] && docs[a].tool().id().compareTo(docs[b].tool().id()) < 0);
    }

    /**
     * The best {@code limit} of the touched docs, best first. A small limit (an agent's search asks for a
     * handful) is selected in one pass with an insertion-sorted array; a large one sorts everything.
     */
    private List<Hit> top(double[] total, IntList touched, int limit) {
        int[] order;
        int count;
        if (limit <= 64) {
            order = new int[Math.min(limit, touched.size)];
            count = 0;
            for (int k = 0; k < touched.size; k++) {
                int d = touched.values[k];
                if (count == order.length && !before(total, d, order[count - 1])) {
                    continue;
                }
                int at = count < order.length ? count++ : count - 1;
                while (at > 0 && before(total, d, order[at - 1])) {
                    order[at] = order[at - 1];
                    at--;
                }
                order[at] = d;
            }
        } else {
            Integer[] boxed = new Integer[touched.size];
            for (int k = 0; k < touched.size; k++) {
                boxed[k] = touched.values[k];
            }
            Arrays.sort(boxed, (a, b) -> before(total, a, b) ? -1 : before(total, b, a) ? 1 : 0);
            count = Math.min(limit, boxed.length);
            order = new int[count];
            for (int k = 0; k < count; k++) {
                order[k] = boxed[k];
            }
        }
        List<Hit> hits = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            IndexedTool tool = docs[order[k]].tool();
            hits.add(new Hit(tool.id(), tool.server(), tool.name(), total[order[k]]));
        }
        return hits;
    }

    // ---- regex search

    /**
     * The tools whose name, title or description a regular expression finds (case-insensitive); a
     * name match ranks above a text match. The pattern's work is bounded by the step budget.
     *
     * @param regex the pattern
     * @param limit the most hits to return
     * @return the hits, best first
     * @throws IllegalArgumentException if the pattern is invalid or spends its step budget
     */
    public List<Hit> searchRegex(String regex, int limit) {
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid regular expression /" + regex + "/: " + e.getDescription()
                    + " near index " + e.getIndex(), e);
        }
        BoundedText.Budget budget = new BoundedText.Budget(config.regexSteps());
        lock.readLock().lock();
        try {
            double[] total = new double[high];
            IntList touched = new IntList();
            for (int d = 0; d < high; d++) {
                Doc doc = docs[d];
                if (doc == null) {
                    continue;
                }
                IndexedTool tool = doc.tool();
                double score = (finds(pattern, tool.name(), budget) ? 2 : 0)
                        + (finds(pattern, tool.title(), budget) || finds(pattern, tool.description(), budget) ? 1 : 0);
                if (score > 0) {
                    total[d] = score;
                    touched.add(d);
                }
            }
            return top(total, touched, limit);
        } catch (BoundedText.Exhausted e) {
            throw new IllegalArgumentException("the regular expression /" + regex + "/ gave up after "
                    + budget.used() + " steps (the bound of one search): simplify it, for example without"
                    + " nested or counted repetition of wildcards such as (.*a){12}", null);
        } finally {
            lock.readLock().unlock();
        }
    }

    private static boolean finds(Pattern pattern, String text, BoundedText.Budget budget) {
        if (text.isEmpty()) {
            return false;
        }
        Matcher matcher = pattern.matcher(new BoundedText(text, budget));
        return matcher.find();
    }

    /**
     * The index terms of a text, as this index analyses tool texts.
     *
     * @param text any text
     * @return its terms
     */
    public List<String> analyze(String text) {
        return config.analyzer().terms(text);
    }

    /** A growable list of ints, for the docs a query touches. */
    private static final class IntList {
        int[] values = new int[16];
        int size;

        void add(int v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        void clear() {
            size = 0;
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Engine[%d tools, %d servers, %d terms]", live, segments.size(), terms.size());
    }
}
