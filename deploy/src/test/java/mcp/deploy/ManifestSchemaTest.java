package mcp.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The Kubernetes manifests of deploy/kubernetes pass the schema check ({@code check.mjs}: kubernetes-models'
 * validators and the references between the objects), and the check fails on each kind of broken manifest.
 */
class ManifestSchemaTest {

    private static final Path MANIFESTS = Path.of(System.getProperty("mcp.deploy.manifests", "kubernetes"));

    @TempDir
    Path temp;

    @Test
    void theManifestsPassTheSchemaCheck() throws Exception {
        Result result = check(MANIFESTS, List.of());
        assertEquals(0, result.exit, result.toString());
        for (String kind : List.of("apps/v1 Deployment", "v1 Service", "v1 Secret", "v1 ConfigMap",
                "policy/v1 PodDisruptionBudget")) {
            assertTrue(result.out.contains("valid " + kind), kind + " checked: " + result);
        }
        assertTrue(result.out.contains("5 objects checked, 0 problems"), result.toString());
    }

    @Test
    void aWrongTypeFails() throws Exception {
        assertBroken("deployment.yaml", s -> s.replace("replicas: 3", "replicas: three"),
                "spec/replicas must be integer");
    }

    @Test
    void aMissingRequiredFieldFails() throws Exception {
        assertBroken("deployment.yaml",
                s -> s.replace("        - name: mcp-host\n          image:", "        - image:"),
                "containers/0 must have required property name");
    }

    /** The generated validators let unknown fields through; the check does not, as kubeconform -strict. */
    @Test
    void aMisspeltFieldFails() throws Exception {
        assertBroken("deployment.yaml", s -> s.replace("readinessProbe:", "readinesProbe:"),
                "unknown field spec.template.spec.containers[0].readinesProbe");
        assertBroken("deployment.yaml", s -> s.replace("sizeLimit: 256Mi", "sizeLimt: 256Mi"),
                "unknown field spec.template.spec.volumes[0].emptyDir.sizeLimt");
        assertBroken("service.yaml", s -> s.replace("sessionAffinity:", "sesionAffinity:"),
                "unknown field spec.sesionAffinity");
    }

    @Test
    void aWrongEnumValueFails() throws Exception {
        assertBroken("service.yaml", s -> s.replace("protocol: TCP", "protocol: HTTP"), "must be equal to one of");
    }

    @Test
    void aBrokenReferenceFails() throws Exception {
        assertBroken("service.yaml", s -> s.replace("targetPort: http", "targetPort: web"),
                "targets port web, which no selected container declares");
        assertBroken("deployment.yaml", s -> s.replace("key: gateway-keys", "key: gateway-key"),
                "names key gateway-key of Secret mcp-host-keys, which has no such key");
    }

    @Test
    void anUnknownKindFails() throws Exception {
        assertBroken("service.yaml", s -> s + "---\napiVersion: v1\nkind: Servic\nmetadata:\n  name: x\n",
                "no schema for apiVersion v1 kind Servic");
    }

    @Test
    void malformedYamlFails() throws Exception {
        assertBroken("configmap.yaml", s -> s.replace("  name: mcp-host-config", "  name: [mcp-host-config"), "YAML");
    }

    /** What a reader of the manifests counts on, and what the image assumes (its user, port and writable paths). */
    @Test
    void theDeploymentRunsThreeLockedDownReplicasWithProbes() throws IOException {
        JsonNode deployment = new YAMLMapper().readTree(MANIFESTS.resolve("deployment.yaml").toFile());
        assertEquals(3, deployment.at("/spec/replicas").asInt());
        JsonNode pod = deployment.at("/spec/template/spec");
        assertTrue(pod.at("/securityContext/runAsNonRoot").asBoolean());
        assertEquals(10001, pod.at("/securityContext/runAsUser").asInt(), "the image's user");
        JsonNode container = pod.at("/containers/0");
        assertTrue(container.at("/securityContext/readOnlyRootFilesystem").asBoolean());
        assertEquals("/readyz", container.at("/readinessProbe/httpGet/path").asString());
        assertEquals("/healthz", container.at("/livenessProbe/httpGet/path").asString());
        assertEquals(8080, container.at("/ports/0/containerPort").asInt(), "the image's entrypoint port");
        assertTrue(container.has("resources") && container.at("/resources/limits").has("memory"));
        List<String> mounts = new ArrayList<>();
        container.at("/volumeMounts").forEach(m -> mounts.add(m.at("/mountPath").asString()));
        assertTrue(mounts.containsAll(List.of("/home/mcp-host", "/tmp")), "writable home and /tmp: " + mounts);
    }

    private void assertBroken(String file, UnaryOperator<String> change, String expected) throws Exception {
        Path dir = Files.createTempDirectory(temp, "broken");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> yamls = Files.list(MANIFESTS)) {
            for (Path yaml : (Iterable<Path>) yamls.filter(p -> p.toString().endsWith(".yaml")).sorted()::iterator) {
                String text = Files.readString(yaml, StandardCharsets.UTF_8);
                if (yaml.getFileName().toString().equals(file)) {
                    String changed = change.apply(text);
                    assertTrue(!changed.equals(text), "the change applies to " + file);
                    text = changed;
                }
                Path copy = dir.resolve(yaml.getFileName());
                Files.writeString(copy, text, StandardCharsets.UTF_8);
                files.add(copy);
            }
        }
        Result result = check(MANIFESTS, files.stream().map(Path::toString).toList());
        assertEquals(1, result.exit, result.toString());
        assertTrue(result.err.contains("INVALID") && result.err.contains(expected),
                "expected " + expected + ": " + result);
    }

    private Result check(Path manifests, List<String> files) throws Exception {
        List<String> command = new ArrayList<>(List.of(Node.binary(), manifests.resolve("check.mjs").toString()));
        command.addAll(files);
        Path out = Files.createTempFile(temp, "out", ".txt");
        Path err = Files.createTempFile(temp, "err", ".txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("check.mjs did not finish within 60 s");
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private record Result(int exit, String out, String err) {
    }
}
