package mcp.api.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What a transport may use to obtain credentials on its own (the OAuth client of the HTTP transport):
 * where credentials are kept, and, when a user is there to log in, how to ask them.
 *
 * @param storage where credentials are kept
 * @param ui how to let the user authorize; empty when nobody can (a background load): a server that
 *     needs a new authorization then fails with a message that says how to log in
 */
public record AuthServices(AuthStorage storage, Optional<AuthorizationUi> ui) {

    /** Checks. */
    public AuthServices {
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(ui, "ui");
    }

    /** @return services that use stored credentials only and never ask the user */
    public static AuthServices storedOnly(AuthStorage storage) {
        return new AuthServices(storage, Optional.empty());
    }
}
