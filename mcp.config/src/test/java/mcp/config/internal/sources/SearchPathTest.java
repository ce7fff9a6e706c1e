package mcp.config.internal.sources;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.spi.CapabilitySource.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchPathTest {

    @Test
    void walksFromTheWorkingDirectoryUpToTheRepositoryRootNearestFirst(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        SearchPath search = SearchPath.of(f.context());
        assertEquals(List.of(f.app, f.app.getParent(), f.project), search.directories());
        assertEquals(Optional.of(f.project), search.repositoryRoot());
        assertEquals(f.project, search.projectRoot());
    }

    @Test
    void aGitFileMarksTheRootToo(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.empty(dir);
        Files.writeString(f.app.getParent().resolve(".git"), "gitdir: ../../.git/worktrees/x\n");
        assertEquals(List.of(f.app, f.app.getParent()), SearchPath.of(f.context()).directories());
    }

    @Test
    void withoutARepositoryOnlyTheWorkingDirectory(@TempDir Path dir) throws IOException {
        Fixture f = Fixture.empty(dir);
        Files.delete(f.project.resolve(".git"));
        SearchPath search = SearchPath.of(f.context());
        assertEquals(List.of(f.app), search.directories());
        assertEquals(Optional.empty(), search.repositoryRoot());
        assertEquals(f.app, search.projectRoot());
    }

    @Test
    void theWorkingDirectoryIsNormalized(@TempDir Path dir) {
        Fixture f = Fixture.empty(dir);
        Context context = new Context(f.app.resolve("../app/./"), f.home.resolve("x/.."), Map.of());
        SearchPath search = SearchPath.of(context);
        assertEquals(f.app, search.workingDirectory());
        assertEquals(f.home, search.home());
        assertEquals(f.app, search.directories().get(0));
    }
}
