/**
 * The parts of the MCP endpoint (src/http/mcp/server.ts) that use the MCP SDK, in a module of their
 * own so the SDK loads at the first MCP request rather than at start (issue 38).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ToolContext, ToolDef } from './tool.ts';

/**
 * A new MCP server with every tool bound to this request's caller. Each tool answers its value as JSON
 * text in `content[0]` (hyperping-go mcp_transport.go parses `content[0].text`).
 */
export function buildServer(tools: readonly ToolDef[], ctx: ToolContext, version: string): McpServer {
  const server = new McpServer({ name: 'pharos', version }, { capabilities: { tools: {} } });
  for (const t of tools) {
    server.registerTool(t.name, { description: t.description, inputSchema: t.input }, async (args: Record<string, unknown>) => ({
      content: [{ type: 'text' as const, text: JSON.stringify((await t.run(args, ctx)) ?? null) }],
    }));
  }
  return server;
}

/** A stateless Streamable HTTP transport answering JSON, never an event stream (docs/api.md "MCP (/v1/mcp)"). */
export function jsonTransport(): WebStandardStreamableHTTPServerTransport {
  return new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
}
