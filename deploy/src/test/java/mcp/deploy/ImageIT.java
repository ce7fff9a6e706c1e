package mcp.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The container image that Jib wrote to deploy/target runs without a container daemon: its layers are unpacked into a
 * directory, and its entrypoint runs there as the image's user, under bubblewrap (read-only root, a writable home and
 * /tmp, as the Kubernetes manifests mount them) or, where bwrap is missing, under chroot as root. Skipped, saying why,
 * when neither can run here.
 */
class ImageIT {

    private static final Path TAR = Path.of(System.getProperty("mcp.deploy.image.tar", "target/mcp-host-image.tar"));
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    static Path temp;

    static Path rootfs;
    static JsonNode config;
    static List<String> entrypoint;
    static String user;

    @BeforeAll
    static void unpack() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux"),
                "the image is built on Linux only (the build's profile image), not on " + System.getProperty("os.name"));
        assertTrue(Files.isRegularFile(TAR), "Jib's image tar at " + TAR + " (the package phase writes it)");
        Path image = Files.createDirectories(temp.resolve("image"));
        run(List.of("tar", "-xf", TAR.toString(), "-C", image.toString()));
        JsonNode manifest = JSON.readTree(image.resolve("manifest.json").toFile()).get(0);
        config = JSON.readTree(image.resolve(manifest.get("Config").asString()).toFile());
        rootfs = Files.createDirectories(temp.resolve("rootfs"));
        for (JsonNode layer : manifest.get("Layers")) {
            run(List.of("tar", "-xzf", image.resolve(layer.asString()).toString(), "-C", rootfs.toString()));
        }
        entrypoint = new ArrayList<>();
        config.at("/config/Entrypoint").forEach(a -> entrypoint.add(a.asString()));
        user = config.at("/config/User").asString();
        System.err.println("ImageIT: the image runs under " + (bwrap() ? "bwrap" : "chroot, if it can"));
    }

    @Test
    void theImageIsTheRuntimeOnScratchWithAPinnedTime() throws IOException {
        assertEquals(System.getProperty("mcp.deploy.image.creationTime"), config.get("created").asString()
                .replace(".000Z", "Z").replace("T00:00Z", "T00:00:00Z"), "pinned creation time");
        assertEquals("10001:10001", user);
        assertEquals(List.of("/opt/mcp-host/bin/java"), entrypoint.subList(0, 1));
        assertTrue(String.join(" ", entrypoint)
                        .endsWith("-m mcp.cli/mcp.cli.Main serve --http --bind 0.0.0.0 --port 8080"),
                "entrypoint: " + entrypoint);
        assertTrue(Files.isExecutable(rootfs.resolve("opt/mcp-host/bin/java")));
        assertTrue(Files.getPosixFilePermissions(rootfs.resolve("opt/mcp-host/lib/jspawnhelper"))
                .contains(PosixFilePermission.OTHERS_EXECUTE), "jspawnhelper starts every stdio server");
        assertTrue(Files.isRegularFile(rootfs.resolve("lib64/ld-linux-x86-64.so.2")), "the dynamic loader");
        assertTrue(Files.readString(rootfs.resolve("etc/passwd")).contains("mcp-host:x:10001:10001:"));
        try (Stream<Path> app = Files.list(rootfs.resolve("app"))) {
            // Jib always writes its two argument files; no jar of its own beside the runtime image.
            assertEquals(Set.of("jib-classpath-file", "jib-main-class-file"),
                    app.map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
        }
        assertFalse(Files.exists(rootfs.resolve("bin/sh")), "no shell");
    }

    @Test
    void theEntrypointsJavaRunsTheCommand() throws Exception {
        List<String> command = new ArrayList<>(entrypoint.subList(0, entrypoint.indexOf("mcp.cli/mcp.cli.Main") + 1));
        command.add("--version");
        Path home = home();
        Process process = sandbox(command, home).redirectError(temp.resolve("version.err").toFile()).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS), "--version within " + BOUND);
        assertEquals(0, process.exitValue(), "stderr: " + Files.readString(temp.resolve("version.err")));
        assertTrue(out.matches("mcp-host \\d+\\.\\d+\\.\\d+\\S*\\R"), "one line on stdout: " + out);
    }

    /** The whole entrypoint, on 127.0.0.1 instead of every address, serves a stdio server that the image starts. */
    @Test
    void theEntrypointServesHttpWithAStdioServerOfTheImage() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path home = home();
        Files.writeString(home.resolve("mcp.json"), """
                {"mcpServers": {"probe": {"command": "/opt/mcp-host/bin/java",
                  "args": ["-Xshare:auto", "-m", "mcp.testkit/mcp.testkit.TestServer", "--tools", "3"]}}}
                """);
        List<String> command = new ArrayList<>(entrypoint);
        command.set(command.indexOf("0.0.0.0"), "127.0.0.1");
        command.set(command.indexOf("8080"), Integer.toString(port));
        command.addAll(List.of("--config", "/home/mcp-host/mcp.json", "--no-project-config"));
        Path err = temp.resolve("serve.err");
        Process process = sandbox(command, home).redirectError(err.toFile())
                .redirectOutput(temp.resolve("serve.out").toFile()).start();
        try {
            awaitPort(port, process, err);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            URI mcp = URI.create("http://127.0.0.1:" + port + "/mcp");
            String initialize = """
                    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                    "capabilities":{},"clientInfo":{"name":"image-test","version":"1"}}}""";
            HttpResponse<String> refused = http.send(post(mcp, initialize, null, null),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, refused.statusCode(), "no token: " + refused.body());
            assertTrue(refused.headers().firstValue("WWW-Authenticate").isPresent());

            Path tokenFile = home.resolve(".local/state/mcp-host/serve-token");
            assertTrue(Files.isRegularFile(tokenFile), "the token, made by the image's user in its home");
            String token = Files.readString(tokenFile).strip();
            HttpResponse<String> init = http.send(post(mcp, initialize, token, null),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, init.statusCode(), init.body());
            assertTrue(init.body().contains("\"serverInfo\""), init.body());
            String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
            HttpResponse<String> initialized = http.send(post(mcp,
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", token, session),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(202, initialized.statusCode(), initialized.body());
            HttpResponse<String> tools = http.send(post(mcp,
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", token, session),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, tools.statusCode(), tools.body());
            for (String tool : List.of("tool_0", "tool_1", "tool_2")) {
                assertTrue(tools.body().contains("\"" + tool + "\""), tool + " of the stdio server: " + tools.body()
                        + "\nstderr: " + Files.readString(err));
            }
        } finally {
            stop(process);
        }
    }

    /**
     * Stops the gateway as Kubernetes does, with SIGTERM to the gateway itself (the sandbox's own process may not
     * pass it on), and checks that the whole tree ends: the gateway ends its stdio server itself, and the sandbox ends
     * with the gateway.
     */
    private static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> tree = process.descendants().toList();
        List<ProcessHandle> gateway = tree.stream()
                .filter(h -> h.info().command().orElse("").endsWith("/opt/mcp-host/bin/java")
                        && h.info().commandLine().orElse("").contains("mcp.cli/mcp.cli.Main"))
                .toList();
        assertEquals(1, gateway.size(), "one gateway process in the sandbox's tree");
        gateway.get(0).destroy();
        boolean ended = process.waitFor(20, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (tree.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        List<ProcessHandle> left = tree.stream().filter(ProcessHandle::isAlive).toList();
        left.forEach(ProcessHandle::destroyForcibly);
        if (!ended) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertTrue(ended, "the sandbox ended within 20 s of SIGTERM");
        assertEquals(List.of(), left.stream().map(h -> h.info().commandLine().orElse("pid " + h.pid())).toList(),
                "processes left 30 s after SIGTERM");
    }

    private static HttpRequest post(URI uri, String body, String token, String session) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (session != null) {
            request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        return request.build();
    }

    private static void awaitPort(int port, Process process, Path err) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("serve ended with " + process.exitValue() + ": " + Files.readString(err));
            }
            try (Socket socket = new Socket("127.0.0.1", port)) {
                assertTrue(socket.isConnected());
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("serve did not listen within " + BOUND + ": " + Files.readString(err));
    }

    /**
     * A fresh home for the image's user: an empty volume, as the manifests mount one. Under bwrap the user is this
     * process's own user mapped into a user namespace, so the home stays this user's; under chroot it is the image's.
     */
    private static Path home() throws IOException {
        Path home = Files.createTempDirectory(temp, "home");
        if (!bwrap()) {
            chown(home);
        }
        return home;
    }

    /** Whether bwrap runs the image here (and the fallback is not asked for with -Dmcp.deploy.sandbox=chroot). */
    private static boolean bwrap() {
        return !System.getProperty("mcp.deploy.sandbox", "auto").equals("chroot")
                && works(List.of("bwrap", "--ro-bind", "/", "/", "true"));
    }

    private static void chown(Path path) throws IOException {
        try {
            run(List.of("chown", user, path.toString()));
        } catch (Exception e) {
            throw new IOException("cannot give " + path + " to the image's user " + user, e);
        }
    }

    /**
     * The process of {@code command} in the image, as its user: bwrap with the image as a read-only root, the home
     * and a fresh /tmp writable, the host's network (the test reaches it on 127.0.0.1), the image's environment
     * only. Without bwrap: chroot into the unpacked copy, with /proc, /dev (as a container runtime gives them: without
     * /dev/urandom the JVM's seeding alone takes seconds) and the home mounted in a mount namespace.
     */
    private static ProcessBuilder sandbox(List<String> command, Path home) throws Exception {
        List<String> env = new ArrayList<>();
        config.at("/config/Env").forEach(e -> env.add(e.asString()));
        String[] ids = user.split(":");
        if (bwrap()) {
            List<String> bwrap = new ArrayList<>(List.of("bwrap", "--ro-bind", rootfs.toString(), "/",
                    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", home.toString(), "/home/mcp-host",
                    "--unshare-user", "--uid", ids[0], "--gid", ids[1], "--unshare-pid", "--unshare-ipc",
                    "--unshare-uts", "--die-with-parent", "--clearenv", "--chdir", "/home/mcp-host"));
            for (String e : env) {
                int eq = e.indexOf('=');
                bwrap.addAll(List.of("--setenv", e.substring(0, eq), e.substring(eq + 1)));
            }
            bwrap.addAll(command);
            return new ProcessBuilder(bwrap);
        }
        Path chrootBinary = Stream.of("/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(chrootBinary != null && isRoot()
                        && works(List.of("unshare", "--mount", "--pid", "--fork", "true")),
                "neither bwrap nor chroot with unshare (as root) can run the image here: install bubblewrap"
                        + " (.ci/run does)");
        // chroot has no bind mounts: the home is the copy's own, bound over it from the test's directory.
        List<String> chroot = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork", "--", "sh", "-c",
                "mount -t proc proc \"$0/proc\" && mount --rbind /dev \"$0/dev\""
                        + " && mount --bind \"$1\" \"$0/home/mcp-host\" && shift 2"
                        + " && exec env -i \"$@\"",
                rootfs.toString(), home.toString()));
        chroot.addAll(env);
        chroot.addAll(List.of(chrootBinary.toString(), "--userspec=" + user, rootfs.toString()));
        chroot.addAll(command);
        return new ProcessBuilder(chroot);
    }

    private static boolean isRoot() {
        try {
            return "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                    StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean works(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}
