import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv, HttpDeps } from '../context.ts';
import { errorBody } from '../errors.ts';
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

/** `text` parsed as JSON, or null when it is not JSON. */
function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: the caller treats it as no message (the transport answers the parse error).
    return null;
  }
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
  const app = new OpenAPIHono<AppEnv>();
  // Documented in /openapi.json without a validator: the SDK's transport reads the raw body itself.
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/',
    tags: ['MCP'],
    summary: 'Model Context Protocol (JSON-RPC 2.0, Streamable HTTP, stateless): initialize, tools/list, tools/call (docs/api.md "MCP (/v1/mcp)")',
    description: 'Answers are JSON (never an event stream). A read token may call the read tools; a write tool with a read token answers the JSON-RPC error -32001.',
    request: {
      body: {
        content: {
          'application/json': {
            schema: z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]).optional(), method: z.string(), params: z.record(z.string(), z.unknown()).optional() }).openapi('McpRequest'),
          },
        },
      },
    },
    responses: {
      200: { description: 'JSON-RPC response (a tool\'s value is JSON text in result.content[0].text)', content: { 'application/json': { schema: z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number(), z.null()]), result: z.unknown().optional(), error: z.object({ code: z.number(), message: z.string() }).optional() }).openapi('McpResponse') } } },
      202: { description: 'A notification or response was accepted (no body)' },
      400: { description: 'Not JSON-RPC: `{error, message}`' },
      415: { description: 'Not application/json: `{error, message}`' },
      401: { description: 'Missing or unknown token' },
    },
  });
  app.post('/', async (c) => {
    const principal: Principal = c.var.principal;
    const text = await c.req.text();
    if (principal.scope === 'read') {
      const refused = writeCalls(parseOrNull(text));
      if (refused.length > 0) {
        const errors = refused.map((r) => ({ jsonrpc: '2.0', id: r.id, error: { code: SCOPE_ERROR_CODE, message: `${r.name}: this token has read scope; write tools need a write token` } }));
        return c.json(Array.isArray(parseOrNull(text)) ? errors : errors[0], 200);
      }
    }
    // Every answer is JSON, so a client that accepts only JSON (or says nothing) is served too; the
    // SDK's transport insists on both types in Accept.
    const headers = new Headers(c.req.raw.headers);
    headers.set('accept', 'application/json, text/event-stream');
    const request = new Request(c.req.raw.url, { method: 'POST', headers, body: text });
    // The MCP SDK loads at the first MCP request, not at start (issue 38: ~7 MB of heap nobody
    // without an MCP client needs; test/api/lazy-modules.test.ts).
    const { buildServer, jsonTransport } = await import('./sdk.ts');
    const server = buildServer(MCP_TOOLS, { core: deps.core, clock: deps.clock, principal }, deps.version);
    const transport = jsonTransport();
    await server.connect(transport);
    try {
      const res = await transport.handleRequest(request);
      if (res.status < 400) return res;
      // A request that is not JSON-RPC (malformed JSON, wrong media type): the API's {error, message}.
      const rpc = parseOrNull(await res.text()) as { error?: { message?: unknown } } | null;
      const message = typeof rpc?.error?.message === 'string' ? rpc.error.message : `MCP request refused (HTTP ${res.status})`;
      return c.json(errorBody(message, undefined, 'mcp.bad_request'), res.status as 400);
    } finally {
      void server.close();
    }
  });
  return app;
}
