import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A real HTTP target on 127.0.0.1 whose answer the test changes at will. */
export interface HttpTarget {
  url: string;
  port: number;
  /** Status and body of the next answers. */
  respond(status: number, body?: string): void;
  /** Answers `status` to requests from `address` (their source address) instead; null clears it. */
  respondTo(address: string, status: number | null): void;
  /** Source addresses of the requests seen so far. */
  clients: Set<string>;
  /** Requests seen so far. */
  hits: number;
  lastRequest: IncomingMessage | null;
  /** Stops listening (connections refused until `listen()`). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  listen(): Promise<void>;
}

/** Starts an HTTP target answering `status`/`body` (default 200 "ok"). */
export async function httpTarget(status = 200, body = 'ok'): Promise<HttpTarget> {
  let current = { status, body };
  const byAddress = new Map<string, number>();
  let server: Server;
  const target: HttpTarget = {
    url: '',
    port: 0,
    hits: 0,
    lastRequest: null,
    clients: new Set(),
    respond(s, b = current.body) {
      current = { status: s, body: b };
    },
    respondTo(address, s) {
      if (s === null) byAddress.delete(address);
      else byAddress.set(address, s);
    },
    async stop() {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
    },
    async listen() {
      server = makeServer();
      await new Promise<void>((r) => server.listen(target.port, '127.0.0.1', () => r()));
    },
  };
  const makeServer = () =>
    createHttpServer((req, res) => {
      target.hits++;
      target.lastRequest = req;
      const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
      target.clients.add(from);
      req.resume();
      res.writeHead(byAddress.get(from) ?? current.status, { 'Content-Type': 'text/plain' });
      res.end(current.body);
    });
  server = makeServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  target.port = (server.address() as AddressInfo).port;
  target.url = `http://127.0.0.1:${target.port}/`;
  return target;
}

/** A real TCP listener on 127.0.0.1 that can be closed and reopened on the same port. */
export interface TcpTarget {
  port: number;
  stop(): Promise<void>;
  listen(): Promise<void>;
}

/** Starts a TCP listener that accepts and closes connections. */
export async function tcpTarget(): Promise<TcpTarget> {
  let server: TcpServer;
  const sockets = new Set<Socket>();
  const make = () =>
    createTcpServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.end();
    });
  const target: TcpTarget = {
    port: 0,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async listen() {
      server = make();
      await new Promise<void>((r) => server.listen(target.port, '127.0.0.1', () => r()));
    },
  };
  server = make();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  target.port = (server.address() as AddressInfo).port;
  return target;
}
