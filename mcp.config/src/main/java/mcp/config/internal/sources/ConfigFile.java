package mcp.config.internal.sources;

import java.nio.file.Path;
import mcp.api.SourceMetadata;

/**
 * One file a source reads.
 *
 * @param path the absolute, normalized path
 * @param level user or project
 * @param directory the directory the file belongs to: for a project file the searched directory it
 *     was found under (the one holding {@code .vscode}), for a user file the project root; editors
 *     call it {@code ${workspaceFolder}}
 * @param format the file's syntax
 */
record ConfigFile(Path path, SourceMetadata.Level level, Path directory, Format format) {
}
