import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** A local server the HTTP-options tests check: its URL, the requests it saw, and a way to stop it. */
export interface LocalServer {
  url: string;
  port: number;
  /** Requests (or CONNECT tunnels, for the proxy) seen so far. */
  hits: number;
  close(): Promise<void>;
}

async function listen(server: Server, scheme: 'http' | 'https', onClose: () => void = () => undefined): Promise<LocalServer & { server: Server }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    url: `${scheme}://127.0.0.1:${port}/`,
    port,
    hits: 0,
    close: () =>
      new Promise<void>((r) => {
        onClose();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * An HTTPS server with the given key and certificate (self-signed, or from a test CA); when `clientCa`
 * is given it requires a client certificate signed by it (mTLS) and answers 200 "hello <CN>".
 * Otherwise it runs `handler` (default 200 "ok").
 */
export async function tlsServer(key: string, cert: string, clientCa?: string, handler?: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
  let s: LocalServer;
  const server = createHttpsServer({ key, cert, ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, (req, res) => {
    s.hits++;
    if (handler) return handler(req, res);
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(clientCa ? `hello ${peer?.subject?.CN ?? 'nobody'}` : 'ok');
  });
  s = await listen(server as unknown as Server, 'https');
  return s;
}

/** A plain HTTP server running `handler` (counting hits). */
export async function plainServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
  let s: LocalServer;
  const server = createHttpServer((req, res) => {
    s.hits++;
    handler(req, res);
  });
  s = await listen(server, 'http');
  return s;
}

/**
 * A tiny HTTP proxy (the test's own server): CONNECT tunnels (https:// targets) and absolute-URI
 * forwarding (http:// targets), over TLS when `tls` is given (an https:// proxy). When `user`/`password` are given it answers 407 to requests without
 * that `Proxy-Authorization: Basic`. `down` makes it refuse with 502 (an upstream it "cannot reach").
 */
export async function proxyServer(user?: string, password?: string, tls?: { key: string; cert: string }): Promise<LocalServer & { down: boolean }> {
  const expected = user === undefined ? null : `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}`;
  const tunnels = new Set<Socket>();
  const authorised = (req: IncomingMessage) => expected === null || req.headers['proxy-authorization'] === expected;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    p.hits++;
    if (!authorised(req)) return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
    if (p.down) return void res.writeHead(502).end('bad gateway');
    const target = new URL(req.url!);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const up = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: { ...headers, via: '1.1 test-proxy' } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  };
  // An https:// proxy is the same proxy behind TLS (the client speaks TLS to the proxy itself).
  const server = tls ? (createHttpsServer(tls, handle) as unknown as Server) : createHttpServer(handle);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    p.hits++;
    if (!authorised(req)) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
    if (p.down) return void client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    tunnels.add(upstream).add(client);
    const drop = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', drop);
    client.on('error', drop);
  });
  const base = await listen(server, tls ? 'https' : 'http', () => {
    for (const t of tunnels) t.destroy();
  });
  const p = Object.assign(base, { down: false });
  return p;
}

/**
 * A local OAuth2 token endpoint (client credentials, RFC 6749 §4.4): answers `{access_token, expires_in}`
 * to `client_id:client_secret` as HTTP Basic and `grant_type=client_credentials`, 401 `invalid_client`
 * otherwise (and while `refuse` is set). `issued` counts tokens handed out; tokens are `tok-<n>`; `scopes` the scopes asked for.
 */
export async function tokenServer(clientId: string, clientSecret: string, expiresInSeconds = 3600): Promise<LocalServer & { issued: number; scopes: string[]; valid: Set<string>; refuse: boolean }> {
  const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  const server = createHttpServer((req, res) => {
    t.hits++;
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      if (t.refuse || req.headers.authorization !== expected || form.get('grant_type') !== 'client_credentials') {
        return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client' }));
      }
      t.scopes.push(form.get('scope') ?? '');
      const token = `tok-${++t.issued}`;
      t.valid.add(token);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresInSeconds }));
    });
  });
  const t = Object.assign(await listen(server, 'http'), { issued: 0, scopes: [] as string[], valid: new Set<string>(), refuse: false });
  return t;
}
