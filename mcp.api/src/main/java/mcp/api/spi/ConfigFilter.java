package mcp.api.spi;

import java.util.Objects;
import java.util.Optional;
import mcp.api.ServerSpec;

/**
 * Drops or rewrites discovered server entries before validation and de-duplication. Built-ins:
 * {@code enabled} (drops {@code enabled: false}), {@code project} (drops project-level entries when
 * project config is off), {@code exa} (drops Exa servers and extracts their API keys).
 */
public interface ConfigFilter {

    /** @return a stable id, e.g. {@code enabled} */
    String id();

    /**
     * @param server one discovered entry
     * @param context the host's options and a place to put extracted data
     * @return what to do with it
     */
    Decision apply(ServerSpec server, Context context);

    /** What the host tells a filter, and what a filter can hand back besides its decision. */
    interface Context {
        /**
         * @param name an option name, e.g. {@code projectConfig}
         * @param defaultValue the value when the host did not set the option
         * @return the option's value
         */
        boolean option(String name, boolean defaultValue);

        /**
         * Hands a value to the embedder (e.g. an Exa API key under {@code exaApiKey}).
         *
         * @param kind what the value is
         * @param value the value; treated as a secret
         */
        void extract(String kind, String value);
    }

    /**
     * A filter's decision: keep the entry (possibly rewritten) or drop it with a reason.
     *
     * @param kept the entry to keep, or empty to drop
     * @param reason why it was dropped ({@code ""} when kept)
     */
    record Decision(Optional<ServerSpec> kept, String reason) {
        /** Validates. */
        public Decision {
            Objects.requireNonNull(kept, "kept");
            Objects.requireNonNull(reason, "reason");
        }

        /** @return keep this entry */
        public static Decision keep(ServerSpec server) {
            return new Decision(Optional.of(server), "");
        }

        /** @return drop the entry */
        public static Decision drop(String reason) {
            return new Decision(Optional.empty(), reason);
        }
    }
}
