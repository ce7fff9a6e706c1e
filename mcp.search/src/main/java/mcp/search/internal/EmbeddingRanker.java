package mcp.search.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import mcp.search.Hit;
import mcp.search.IndexedTool;
import mcp.search.TextEmbeddings;
import mcp.search.spi.ToolRanker;

/**
 * A dense retriever over one index's tools: the cosine of each tool's vector and the query's, best first. Tools are
 * handed to the model's thread when they come ({@link #put} returns at once); a query ranks the tools embedded so
 * far, over one matrix that is rebuilt when tools or vectors changed since the last query.
 */
public final class EmbeddingRanker implements ToolRanker {

    private record Entry(String id, String server, String name, String key) {
    }

    /** The tools in one array: row i of {@code data} is the vector of {@code entries[i]}. */
    private record Matrix(Entry[] entries, float[] data, int dimension, int missing, long version, long structure) {
    }

    private final TextEmbeddings embeddings;
    /** Each server's tools; guarded by this, like {@link #structure}. */
    private final Map<String, List<Entry>> servers = new LinkedHashMap<>();
    private long structure;
    private volatile Matrix matrix = new Matrix(new Entry[0], new float[0], 0, 0, -1, -1);

    /**
     * @param embeddings the model and its vectors
     */
    public EmbeddingRanker(TextEmbeddings embeddings) {
        this.embeddings = embeddings;
    }

    @Override
    public String id() {
        return embeddings.id();
    }

    @Override
    public void put(String server, Collection<IndexedTool> tools) {
        List<Entry> entries = new ArrayList<>(tools.size());
        for (IndexedTool tool : tools) {
            entries.add(new Entry(tool.id(), tool.server(), tool.name(), embeddings.key(tool)));
        }
        synchronized (this) {
            if (entries.isEmpty()) {
                servers.remove(server);
            } else {
                servers.put(server, List.copyOf(entries));
            }
            structure++;
        }
        embeddings.embedAhead(tools);
    }

    @Override
    public void remove(String server) {
        synchronized (this) {
            servers.remove(server);
            structure++;
        }
    }

    @Override
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        List<String> keys = new ArrayList<>();
        synchronized (this) {
            servers.values().forEach(list -> list.forEach(entry -> keys.add(entry.key())));
        }
        return embeddings.await(keys, timeout.toNanos());
    }

    @Override
    public List<Hit> rank(String query, int limit) {
        Matrix m = current();
        if (m.entries().length == 0) {
            String failure = embeddings.lastFailure().map(f -> ": the model failed (" + f + ")").orElse("");
            throw new IllegalStateException(m.missing() == 0 ? "no tools" : "no tool embedded yet, " + m.missing()
                    + " waiting" + failure);
        }
        float[] q = embeddings.embedQuery(query);
        if (q.length != m.dimension()) {
            throw new IllegalStateException("the query's vector has " + q.length + " dimensions, the tools' "
                    + m.dimension());
        }
        // The best `limit` rows by dot product (unit vectors: the cosine), in a min-heap of that size.
        PriorityQueue<double[]> best = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
        float[] data = m.data();
        int d = m.dimension();
        for (int row = 0, offset = 0; row < m.entries().length; row++, offset += d) {
            // Four running sums: independent additions the JIT can overlap (a single sum is one long chain).
            float s0 = 0;
            float s1 = 0;
            float s2 = 0;
            float s3 = 0;
            int i = 0;
            for (; i + 3 < d; i += 4) {
                s0 += data[offset + i] * q[i];
                s1 += data[offset + i + 1] * q[i + 1];
                s2 += data[offset + i + 2] * q[i + 2];
                s3 += data[offset + i + 3] * q[i + 3];
            }
            for (; i < d; i++) {
                s0 += data[offset + i] * q[i];
            }
            double dot = (s0 + s1) + (s2 + s3);
            if (best.size() < limit) {
                best.add(new double[] {dot, row});
            } else if (dot > best.peek()[0]) {
                best.poll();
                best.add(new double[] {dot, row});
            }
        }
        List<Hit> hits = new ArrayList<>(best.size());
        while (!best.isEmpty()) {
            double[] top = best.poll();
            Entry e = m.entries()[(int) top[1]];
            hits.add(new Hit(e.id(), e.server(), e.name(), top[0]));
        }
        java.util.Collections.reverse(hits);
        return hits;
    }

    /** The matrix of the tools as they are now, rebuilt when tools or vectors changed. */
    private Matrix current() {
        Matrix m = matrix;
        long version = embeddings.version();
        synchronized (this) {
            if (m.version() == version && m.structure() == structure) {
                return m;
            }
            List<Entry> ready = new ArrayList<>();
            List<float[]> vectors = new ArrayList<>();
            int missing = 0;
            int dimension = -1;
            for (List<Entry> list : servers.values()) {
                for (Entry entry : list) {
                    float[] v = embeddings.vector(entry.key());
                    if (v == null || (dimension != -1 && v.length != dimension)) {
                        missing++;
                        continue;
                    }
                    dimension = v.length;
                    ready.add(entry);
                    vectors.add(v);
                }
            }
            dimension = Math.max(dimension, 0);
            float[] data = new float[ready.size() * dimension];
            for (int i = 0; i < vectors.size(); i++) {
                System.arraycopy(vectors.get(i), 0, data, i * dimension, dimension);
            }
            m = new Matrix(ready.toArray(new Entry[0]), data, dimension, missing, version, structure);
            matrix = m;
            return m;
        }
    }
}
