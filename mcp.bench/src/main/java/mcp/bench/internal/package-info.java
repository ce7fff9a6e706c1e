/**
 * The mcp-host and floor client processes, the startup-at-scale and CLI measurements, and the
 * runner that alternates client processes and writes the report. Not exported.
 */
package mcp.bench.internal;
