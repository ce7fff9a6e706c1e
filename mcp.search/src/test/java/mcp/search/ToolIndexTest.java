package mcp.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ranking, name matches, the thesaurus, the regex bound and incremental updates of the index. */
class ToolIndexTest {

    private static IndexedTool tool(String server, String name, String description, String... params) {
        List<IndexedTool.Param> list = new ArrayList<>();
        for (String p : params) {
            list.add(new IndexedTool.Param(p, ""));
        }
        return new IndexedTool(server + "__" + name, server, name, null, description, list);
    }

    private static final List<IndexedTool> GIT = List.of(
            tool("git", "git_stash", "Stash the changes in the working directory", "repo_path", "message"),
            tool("git", "git_commit", "Record changes to the repository", "repo_path", "message"),
            tool("git", "git_log", "Show the commit logs", "repo_path", "max_count"),
            tool("git", "git_diff", "Show changes between commits", "repo_path", "target"));

    private static final List<IndexedTool> GITHUB = List.of(
            tool("github", "create_issue", "Create a new issue in a GitHub repository", "owner", "repo", "title"),
            tool("github", "list_issues", "List issues in a GitHub repository with filters", "owner", "repo",
                    "assignee", "state"),
            tool("github", "create_pull_request", "Create a new pull request in a GitHub repository", "owner",
                    "repo", "head", "base"),
            tool("github", "search_repositories", "Search for GitHub repositories", "query"),
            tool("github", "delete_file", "Delete a file from a GitHub repository", "owner", "repo", "path"));

    private static final List<IndexedTool> FILES = List.of(
            tool("filesystem", "read_file", "Read the complete contents of a file from the file system", "path"),
            tool("filesystem", "write_file", "Create a new file or overwrite an existing file", "path", "content"),
            tool("filesystem", "list_directory", "Get a detailed listing of all files and directories", "path"),
            tool("filesystem", "move_file", "Move or rename files and directories", "source", "destination"));

    private static ToolIndex index() {
        ToolIndex index = ToolIndex.builder().build();
        index.put("git", GIT);
        index.put("github", GITHUB);
        index.put("filesystem", FILES);
        return index;
    }

    private static String first(ToolIndex index, String query) {
        List<Hit> hits = index.search(query, 5);
        assertFalse(hits.isEmpty(), "no hit for: " + query);
        return hits.get(0).name();
    }

    @Test
    void wordsInTheNameAndDescriptionRankTheRightToolFirst() {
        ToolIndex index = index();
        assertEquals("create_issue", first(index, "create an issue on github"));
        assertEquals("list_issues", first(index, "list open issues assigned to me"));
        assertEquals("read_file", first(index, "read the contents of a file"));
        assertEquals("git_log", first(index, "show commit logs"));
    }

    @Test
    void hitsAreOrderedByScoreThenId() {
        List<Hit> hits = index().search("repository", 20);
        assertTrue(hits.size() >= 3);
        for (int i = 1; i < hits.size(); i++) {
            Hit a = hits.get(i - 1);
            Hit b = hits.get(i);
            assertTrue(a.score() > b.score() || (a.score() == b.score() && a.id().compareTo(b.id()) < 0),
                    a + " before " + b);
        }
    }

    @Test
    void aNameWordOutweighsTheSameWordInADescription() {
        ToolIndex index = ToolIndex.builder().thesaurus(false).build();
        index.put("s", List.of(
                tool("s", "archive_note", "Moves a note out of the way; a backup is kept"),
                tool("s", "backup_database", "Copies everything")));
        assertEquals("backup_database", first(index, "backup"));
        ToolIndex flat = ToolIndex.builder().thesaurus(false).singleField(true).nameMatches(false).build();
        flat.put("s", List.of(
                tool("s", "archive_note", "Moves a note out of the way; a backup is kept, a backup"),
                tool("s", "backup_database", "Copies every table of the database to a safe place, every night")));
        assertEquals("archive_note", first(flat, "backup"), "without field weights two mentions win");
    }

    @Test
    void theWholeNameAsTypedRanksThatToolFirst() {
        ToolIndex index = index();
        assertEquals("git_commit", first(index, "git_commit"));
        assertEquals("git_commit", first(index, "GitCommit"));
        assertEquals("create_pull_request", first(index, "create-pull-request"));
        assertEquals("create_pull_request", first(index, "github__create_pull_request"), "by id");
        List<Hit> hits = index.search("git_commit", 5);
        assertTrue(hits.get(0).score() > 2 * hits.get(1).score(), "an exact name stands out: " + hits);
    }

    @Test
    void aPrefixOfTheNameOrOfANameWordMatches() {
        ToolIndex index = index();
        assertEquals("create_pull_request", first(index, "create_pull"));
        assertEquals("search_repositories", first(index, "search repo"), "repo -> repositories");
        assertEquals("list_directory", first(index, "list dir"), "dir -> directory");
        ToolIndex noPrefix = ToolIndex.builder().thesaurus(false).prefixWeight(0).nameMatches(false).build();
        noPrefix.put("filesystem", FILES);
        assertTrue(noPrefix.search("direct", 5).isEmpty(), "without prefixes a fragment finds nothing");
    }

    @Test
    void theThesaurusFindsToolsThatShareNoWordWithTheQuery() {
        ToolIndex index = index();
        assertEquals("git_stash", first(index, "shelve my half-done work"));
        assertEquals("create_issue", first(index, "open a new ticket"));
        assertEquals("create_pull_request", first(index, "open a PR"));
        assertEquals("delete_file", first(index, "get rid of a file on github"));
        ToolIndex without = ToolIndex.builder().thesaurus(false).build();
        without.put("git", GIT);
        without.put("github", GITHUB);
        assertTrue(without.search("shelve my half-done edits", 5).isEmpty(), "no shared word, no thesaurus: no hit");
    }

    @Test
    void applicationSynonymsAddToTheThesaurus() {
        ToolIndex index = ToolIndex.builder().thesaurus(false).synonyms(List.of("squirrel away", "stash")).build();
        index.put("git", GIT);
        assertEquals("git_stash", first(index, "squirrel away my edits"));
    }

    @Test
    void regexModeMatchesNamesBeforeDescriptions() {
        ToolIndex index = index();
        List<Hit> hits = index.search("/^git_(stash|log)$/", 10);
        assertEquals(List.of("git_log", "git_stash"), hits.stream().map(Hit::name).toList());
        List<Hit> mixed = index.search("/commit/", 10);
        assertEquals("git_commit", mixed.get(0).name(), "name match first");
        assertTrue(mixed.stream().anyMatch(h -> h.name().equals("git_log")), "description match too");
        assertTrue(mixed.get(0).score() > mixed.get(mixed.size() - 1).score());
        assertEquals("git_commit", index.search("/GIT_COMMIT/", 1).get(0).name(), "case-insensitive");
    }

    @Test
    void anInvalidRegexIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> index().search("/(unclosed/", 5));
        assertTrue(e.getMessage().contains("invalid regular expression"), e.getMessage());
    }

    @Test
    void catastrophicBacktrackingIsStoppedByTheStepBound() {
        ToolIndex index = ToolIndex.builder().regexStepLimit(1_000_000).build();
        index.put("evil", List.of(tool("evil", "t", "a".repeat(60) + "!")));
        // Java memoises simple nested repetition such as (a+)+b, not a counted group of .*: on 60 a's and
        // no x this pattern backtracks for hours unbounded (measured: not done after 100 s).
        IllegalArgumentException e = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> assertThrows(IllegalArgumentException.class, () -> index.search("/(.*a){12}x/", 5)));
        assertTrue(e.getMessage().contains("gave up after"), e.getMessage());
        assertEquals(1, index.search("/a+!/", 5).size(), "a sane pattern on the same text is answered");
    }

    @Test
    void putReplacesAServerAndRemoveDropsItLeavingOthersAlone() {
        ToolIndex index = index();
        assertEquals(13, index.size());
        assertEquals("git_stash", first(index, "stash"));
        index.put("git", List.of(tool("git", "git_status", "Show the working tree status", "repo_path")));
        assertEquals(10, index.size());
        assertTrue(index.search("stash", 5).stream().noneMatch(h -> h.server().equals("git")), "old tools are gone");
        assertEquals("git_status", first(index, "working tree status"));
        assertTrue(index.remove("git"));
        assertFalse(index.remove("git"));
        assertEquals(9, index.size());
        assertTrue(index.search("working tree status", 5).stream().noneMatch(h -> h.server().equals("git")));
        assertEquals("create_issue", first(index, "create an issue on github"), "other servers unchanged");
        index.put("github", List.of());
        assertEquals(List.of("filesystem"), List.copyOf(index.servers()));
    }

    @Test
    void incrementalUpdatesRankAsAFreshBuildDoes() {
        ToolIndex incremental = ToolIndex.builder().build();
        incremental.put("github", GITHUB);
        incremental.put("git", FILES.stream().map(t -> tool("git", t.name(), t.description())).toList());
        incremental.put("filesystem", FILES);
        incremental.put("git", GIT);
        incremental.remove("github");
        incremental.put("github", GITHUB);
        ToolIndex fresh = index();
        for (String query : List.of("create an issue", "show changes", "file", "repository", "shelve", "/file/")) {
            assertEquals(fresh.search(query, 10), incremental.search(query, 10), query);
        }
    }

    @Test
    void badInputIsRefused() {
        ToolIndex index = index();
        assertThrows(IllegalArgumentException.class, () -> index.search("x", 0));
        assertThrows(IllegalArgumentException.class, () -> index.put("a", List.of(tool("b", "t", ""))));
        assertThrows(IllegalArgumentException.class, () -> index.put("a", List.of(tool("a", "t", ""), tool("a", "t", ""))));
        assertEquals(13, index.size(), "a refused put changes nothing");
        assertTrue(index.search("   ", 5).isEmpty());
        assertTrue(index.search("the of and", 5).isEmpty(), "stop words only");
    }

    @Test
    void analyzeShowsTheTerms() {
        assertEquals(List.of("list", "pull", "request"), index().analyze("listPullRequests"));
        assertEquals(List.of("listpullrequests"), ToolIndex.builder().splitIdentifiers(false).stemming(false).build()
                .analyze("listPullRequests"));
    }

    @Test
    void aQuerysValuesDoNotMatchTextsThatHappenToContainThem() {
        List<IndexedTool> tools = List.of(
                tool("t", "add_comment", "Add a comment to an issue"),
                tool("t", "get_page", "Returns page 42 of the results: 42 items at most"),
                tool("t", "send_mail", "Send mail to acme.com or milk suppliers"));
        ToolIndex index = ToolIndex.builder().build();
        index.put("t", tools);
        assertEquals("add_comment", first(index, "comment on issue 42"), "a bare number is a value");
        assertEquals("add_comment", first(index, "add a comment 'buy milk' to jane@acme.com"),
                "quoted text and an e-mail address are values");
        assertEquals("get_page", first(index, "42"), "a query of values only is kept as it is");
    }

    @Test
    void aFilePathInTheQueryReadsAsAFileNotAsItsWords() {
        List<IndexedTool> tools = List.of(
                tool("t", "read_file", "Read the contents of a file", "path"),
                tool("t", "app_logs", "Show the application's logs from /var/log/app"));
        ToolIndex index = ToolIndex.builder().build();
        index.put("t", tools);
        assertEquals("app_logs", first(index, "show the app log"));
        assertEquals("read_file", first(index, "show the end of /var/log/app/server.log"),
                "the path's words (var, log, app) say where, not which tool");
        assertEquals("read_file", first(index, "show me ~/notes/log.md"));
        assertEquals("read_file", first(index, "show me C:\\logs\\app.log"));
        assertEquals("app_logs", first(index, "show the app logs and/or errors"), "and/or is no path");
    }

    @Test
    void aFileNameInTheQueryReadsAsAFileNotAsAProduct() {
        ToolIndex index = ToolIndex.builder().build();
        index.put("filesystem", FILES);
        index.put("ms-365", List.of(
                tool("ms-365", "list-onenote-notebooks", "List Microsoft OneNote notebooks"),
                tool("ms-365", "list-onenote-notebook-sections", "List the sections of a OneNote notebook"),
                tool("ms-365", "get-onenote-page-content", "Get the content of a OneNote page")));
        index.put("gitlab", List.of(tool("gitlab", "validate_ci_lint", "Validate the .gitlab-ci.yml configuration")));
        assertEquals("read_file", first(index, "read the contents of notes.txt"),
                "notes.txt is a text file, not OneNote's notes");
        assertEquals("read_file", first(index, "show me Q3-Notes.md"));
        assertEquals("validate_ci_lint", first(index, "is my .gitlab-ci.yml valid"), "a dotfile's name says which tool");
    }

    @Test
    void aLiteralMatchOutranksAMatchOnASynonymOnly() {
        // "read" is common here and "fetch" rare: on idf alone, the synonym "fetch" would outweigh the
        // user's own word even at the synonym weight.
        List<IndexedTool> tools = List.of(
                tool("t", "fetch_widget", "Fetch a widget"),
                tool("t", "read_widget", "Read a widget"),
                tool("t", "read_logs", "Read the logs"),
                tool("t", "read_mail", "Read mail"),
                tool("t", "read_page", "Read a page"),
                tool("t", "read_notes", "Read notes"));
        ToolIndex index = ToolIndex.builder().build();
        index.put("t", tools);
        List<String> hits = index.search("read the widget", 5).stream().map(Hit::name).toList();
        assertEquals(List.of("read_widget", "fetch_widget"), hits.subList(0, 2), "literal first, the synonym still found");
        assertEquals("fetch_widget", first(index, "fetch the widget"), "and the other way round");
    }

    @Test
    void aCamelCaseProductNameTheIndexKnowsWholeStaysWhole() {
        ToolIndex index = ToolIndex.builder().build();
        index.put("hubspot", List.of(tool("hubspot", "hubspot-search-objects", "Search CRM objects")));
        index.put("other", List.of(tool("other", "spot_check", "Hub of spot checks")));
        assertEquals("hubspot-search-objects", first(index, "search HubSpot"));
        assertEquals(List.of("hub", "spot"), index.analyze("HubSpot"), "tool texts are still split");
    }

    @Test
    void aThesaurusPhraseReducedToOneWordByStopWordsIsNotSearchedAlone() {
        // "look for" is in the search group; without the rule, "find" would find every "look".
        ToolIndex index = ToolIndex.builder().build();
        index.put("t", List.of(tool("t", "look_and_feel", "Change the look of the theme"),
                tool("t", "find_theme", "Find a theme")));
        assertEquals("find_theme", first(index, "find theme"));
        assertTrue(index.search("find", 5).stream().noneMatch(h -> h.name().equals("look_and_feel")),
                "'find' does not reach 'look' through 'look for'");
    }

    @Test
    void newsIsNotStemmedIntoNew() {
        ToolIndex index = ToolIndex.builder().build();
        index.put("t", List.of(tool("t", "news_search", "Search news articles"),
                tool("t", "create_item", "Create a new item")));
        assertEquals(List.of("news", "search"), index.analyze("news_search"));
        assertEquals(List.of("news_search"), index.search("news", 5).stream().map(Hit::name).toList(),
                "'news' does not find a tool for being new");
    }
}
