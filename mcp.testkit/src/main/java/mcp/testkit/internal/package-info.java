/** Helpers of the test server; not exported. */
package mcp.testkit.internal;
