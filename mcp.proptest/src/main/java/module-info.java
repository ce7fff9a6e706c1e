/**
 * Property tests on plain JUnit 5: {@link mcp.proptest.Cases} runs a property over generated cases, each
 * from a seed of its own, and a failure names the seed that replays it; {@link mcp.proptest.Gen} draws
 * the values, with edge cases mixed in. The other modules use it in test scope only; it is not part of
 * the runtime image.
 */
module mcp.proptest {
    exports mcp.proptest;
}
