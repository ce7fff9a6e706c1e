package mcp.host.internal.conformance;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import mcp.api.StoredCredential;
import mcp.api.spi.AuthStorage;

/** Credentials for one conformance run: in memory, gone when the process ends. */
final class MemoryAuthStorage implements AuthStorage {

    private final ConcurrentHashMap<String, StoredCredential> credentials = new ConcurrentHashMap<>();

    @Override
    public String id() {
        return "memory";
    }

    @Override
    public Optional<StoredCredential> load(String credentialId) {
        return Optional.ofNullable(credentials.get(credentialId));
    }

    @Override
    public void save(String credentialId, StoredCredential credential) {
        credentials.put(credentialId, credential);
    }

    @Override
    public boolean delete(String credentialId) {
        return credentials.remove(credentialId) != null;
    }

    @Override
    public List<String> credentialIds() {
        return credentials.keySet().stream().sorted().toList();
    }
}
