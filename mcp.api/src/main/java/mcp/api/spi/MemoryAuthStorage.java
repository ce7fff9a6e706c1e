package mcp.api.spi;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import mcp.api.StoredCredential;

/** {@link AuthStorage#inMemory()}. */
final class MemoryAuthStorage implements AuthStorage {

    private final ConcurrentHashMap<String, StoredCredential> credentials = new ConcurrentHashMap<>();

    @Override
    public String id() {
        return "memory";
    }

    @Override
    public Optional<StoredCredential> load(String credentialId) {
        return Optional.ofNullable(credentials.get(Objects.requireNonNull(credentialId, "credentialId")));
    }

    @Override
    public void save(String credentialId, StoredCredential credential) {
        credentials.put(Objects.requireNonNull(credentialId, "credentialId"),
                Objects.requireNonNull(credential, "credential"));
    }

    @Override
    public boolean delete(String credentialId) {
        return credentials.remove(Objects.requireNonNull(credentialId, "credentialId")) != null;
    }

    @Override
    public List<String> credentialIds() {
        return credentials.keySet().stream().sorted().toList();
    }

    @Override
    public String toString() {
        return "MemoryAuthStorage" + credentialIds();
    }
}
