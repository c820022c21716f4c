import { Hono } from 'hono';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppEnv, HttpDeps } from '../context.ts';
import type { Principal } from '../../domain/user.ts';
import { monitorTools } from './tools-monitors.ts';
import { outageTools } from './tools-outages.ts';
import { reportTools } from './tools-reports.ts';
import { onCallTools } from './tools-oncall.ts';
import type { ToolContext, ToolDef } from './tool.ts';

/** Every MCP tool, in the order tools/list names them. */
export const MCP_TOOLS: readonly ToolDef[] = [...monitorTools, ...outageTools, ...reportTools, ...onCallTools];

/** Names of the tools that write: a read-scope token calling one gets the JSON-RPC error {@link SCOPE_ERROR_CODE}. */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(MCP_TOOLS.filter((t) => t.write).map((t) => t.name));

/** JSON-RPC error code of a write tool called with a read token (an implementation-defined server error, -32000…-32099). */
export const SCOPE_ERROR_CODE = -32001;

/**
 * A new MCP server with every tool bound to this request's caller. Each tool answers its value as JSON
 * text in `content[0]` (hyperping-go mcp_transport.go parses `content[0].text`).
 */
function buildServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer({ name: 'pharos', version }, { capabilities: { tools: {} } });
  for (const t of MCP_TOOLS) {
    server.registerTool(t.name, { description: t.description, inputSchema: t.input }, async (args: Record<string, unknown>) => ({
      content: [{ type: 'text' as const, text: JSON.stringify((await t.run(args, ctx)) ?? null) }],
    }));
  }
  return server;
}

/** The write tools a JSON-RPC message (or batch) calls: `tools/call` with a name in {@link WRITE_TOOLS}. */
function writeCalls(body: unknown): Array<{ id: unknown; name: string }> {
  const messages = Array.isArray(body) ? body : [body];
  const out: Array<{ id: unknown; name: string }> = [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const msg = m as { method?: unknown; id?: unknown; params?: { name?: unknown } };
    if (msg.method === 'tools/call' && typeof msg.params?.name === 'string' && WRITE_TOOLS.has(msg.params.name)) out.push({ id: msg.id ?? null, name: msg.params.name });
  }
  return out;
}

/**
 * `POST /v1/mcp` (docs/api.md "MCP (/v1/mcp)"): the Model Context Protocol over Streamable HTTP,
 * stateless (a new server and transport per request, no session id), answers as JSON
 * (`enableJsonResponse`: hyperping-go reads JSON, not server-sent events). Behind the API's bearer
 * auth (src/http/auth.ts lets a read token post here); a read token may call the read tools only:
 * a write tool answers a JSON-RPC error (code {@link SCOPE_ERROR_CODE}) and runs nothing.
 * GET and DELETE (a session's stream and its end) answer 405: there are no sessions.
 */
export function mcpRouter(deps: Pick<HttpDeps, 'core' | 'clock' | 'version'>) {
  const app = new Hono<AppEnv>();
  app.post('/', async (c) => {
    const principal: Principal = c.var.principal;
    if (principal.scope === 'read') {
      let body: unknown = null;
      try {
        body = await c.req.raw.clone().json();
      } catch {
        // Not JSON: nothing to refuse here; the transport itself answers the parse error (-32700).
        body = null;
      }
      const refused = writeCalls(body);
      if (refused.length > 0) {
        const errors = refused.map((r) => ({ jsonrpc: '2.0', id: r.id, error: { code: SCOPE_ERROR_CODE, message: `${r.name}: this token has read scope; write tools need a write token` } }));
        return c.json(Array.isArray(body) ? errors : errors[0], 200);
      }
    }
    const server = buildServer({ core: deps.core, clock: deps.clock, principal }, deps.version);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
  return app;
}
