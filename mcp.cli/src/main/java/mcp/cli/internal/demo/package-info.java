/** {@code mcp-host demo}: the whole lifecycle on test servers that ship with mcp-host. */
package mcp.cli.internal.demo;
