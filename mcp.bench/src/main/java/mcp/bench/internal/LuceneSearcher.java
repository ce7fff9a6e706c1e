package mcp.bench.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import mcp.search.IndexedTool;
import mcp.search.ToolIndex;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Lucene 9.12.3 as the engine, for the choice the issue asks for: the same six fields and field weights
 * as mcp-host's default, each tool text analysed by mcp-host's own analyzer ({@link ToolIndex#analyze}:
 * splitting, stop words, stemming) and indexed as those terms; a query is one boosted term query per
 * term and field (Lucene's BM25 per field, summed: the usual multi-field query). The thesaurus, prefix
 * and name matches are not rebuilt on Lucene: this measures the engine, with the analysis held equal.
 * Bench only: Lucene is not a dependency of any shipped module.
 */
final class LuceneSearcher implements SearchBench.Searcher {

    private static final String[] FIELDS = {"name", "title", "description", "paramNames", "paramDescriptions", "server"};
    private static final float[] WEIGHTS = {3f, 2f, 1f, 0.6f, 0.3f, 1f};

    private final ToolIndex analysis = ToolIndex.builder().build();
    private final IndexSearcher searcher;

    LuceneSearcher(SearchBench.Corpus corpus) {
        try {
            ByteBuffersDirectory directory = new ByteBuffersDirectory();
            IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer());
            config.setSimilarity(new BM25Similarity());
            try (IndexWriter writer = new IndexWriter(directory, config)) {
                for (Map.Entry<String, List<IndexedTool>> server : corpus.servers().entrySet()) {
                    for (IndexedTool tool : server.getValue()) {
                        writer.addDocument(document(tool));
                    }
                }
                writer.commit();
            }
            searcher = new IndexSearcher(DirectoryReader.open(directory));
            searcher.setSimilarity(new BM25Similarity());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Document document(IndexedTool tool) {
        StringBuilder names = new StringBuilder();
        StringBuilder descriptions = new StringBuilder();
        for (IndexedTool.Param p : tool.params()) {
            names.append(p.name()).append(' ');
            descriptions.append(p.description()).append(' ');
        }
        String[] texts = {tool.name(), tool.title(), tool.description(), names.toString(), descriptions.toString(),
            tool.server()};
        Document doc = new Document();
        doc.add(new StringField("id", tool.id(), Field.Store.YES));
        for (int f = 0; f < FIELDS.length; f++) {
            doc.add(new TextField(FIELDS[f], String.join(" ", analysis.analyze(texts[f])), Field.Store.NO));
        }
        return doc;
    }

    @Override
    public List<String> search(String query, int limit) {
        BooleanQuery.Builder q = new BooleanQuery.Builder();
        for (String term : new LinkedHashSet<>(analysis.analyze(query))) {
            for (int f = 0; f < FIELDS.length; f++) {
                q.add(new BoostQuery(new TermQuery(new Term(FIELDS[f], term)), WEIGHTS[f]), BooleanClause.Occur.SHOULD);
            }
        }
        try {
            List<String> ids = new ArrayList<>();
            for (ScoreDoc hit : searcher.search(q.build(), limit).scoreDocs) {
                ids.add(searcher.storedFields().document(hit.doc).get("id"));
            }
            return ids;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
