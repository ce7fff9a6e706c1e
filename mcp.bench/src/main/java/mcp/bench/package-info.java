/**
 * The workload every Java client process of the benchmark runs: {@link mcp.bench.BenchClient} is
 * what a client must offer (connect, list tools, call {@code echo}), and {@link mcp.bench.ClientRun}
 * measures it the same way for every client and prints one JSON line of results.
 */
package mcp.bench;
