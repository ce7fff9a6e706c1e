package mcp.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mcp.api.ConsultedFile;

/**
 * What a consulted file looked like at one moment (through a link: its target), enough to tell that it changed
 * since without reading it: the file system's events tell the watcher of most changes, these of a change made
 * where no directory was watched yet (between a discovery and the watch of a directory it made appear).
 *
 * @param exists whether it was there
 * @param size its size in bytes, -1 when absent
 * @param modified its modification time in nanoseconds, -1 when absent
 * @param key the file system's identity of it (the inode), which a replace by rename changes; null when unknown
 */
record FileStamp(boolean exists, long size, long modified, Object key) {

    static final FileStamp ABSENT = new FileStamp(false, -1, -1, null);

    static FileStamp of(Path path) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            return new FileStamp(true, attributes.size(), attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS),
                    attributes.fileKey());
        } catch (IOException | SecurityException e) {
            return ABSENT; // missing, a dangling link, or nothing that can be looked at: all the same here
        }
    }

    /** @return the stamp of each file, by path */
    static Map<Path, FileStamp> of(List<ConsultedFile> files) {
        Map<Path, FileStamp> stamps = new LinkedHashMap<>();
        files.forEach(file -> stamps.put(file.path(), of(file.path())));
        return stamps;
    }
}
