package mcp.manager;

import java.util.Optional;

/**
 * One {@code notifications/progress} for a request in flight.
 *
 * @param progress the progress so far (increases with every update)
 * @param total the total, when the server knows it
 * @param message a message for people, when given
 */
public record ProgressUpdate(double progress, Optional<Double> total, Optional<String> message) {
}
