/** Helpers of the test servers (command-line options, OAuth wire encodings); not exported. */
package mcp.testkit.internal;
