import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createProbes } from '../../engine/probes/index.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';
import { frameReader } from './frames.ts';

// A local WebSocket server on node:http's 'upgrade' (RFC 6455 handshake, unmasked server frames):
// /echo answers each text message with "echo: <it>", /hello greets with `greeting`, /strict closes
// with 1008 on any message; `refusing` answers the upgrade with 503 instead.
let refusing = false;
let greeting = 'welcome v2';
const serverFrame = (opcode: number, payload: Buffer) => Buffer.concat([Buffer.from([0x80 | opcode, payload.length]), payload]);
const text = (s: string) => serverFrame(0x1, Buffer.from(s));
let server: Server;
let base = '';
const sockets = new Set<Duplex>();
before(async () => {
  server = createServer((_req, res) => res.writeHead(426).end('use a WebSocket'));
  server.on('upgrade', (req, socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (refusing) return socket.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
    if (req.url === '/hello') socket.write(text(greeting));
    socket.on('data', frameReader((ev) => {
      if (ev.kind === 'close') return void socket.end(serverFrame(0x8, Buffer.from([0x03, 0xe8])));
      if (ev.kind !== 'message') return;
      if (req.url === '/echo') socket.write(text(`echo: ${ev.text}`));
      if (req.url === '/strict') socket.end(serverFrame(0x8, Buffer.concat([Buffer.from([0x03, 0xf0]), Buffer.from('not allowed')])));
    }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  for (const s of sockets) s.destroy();
  server?.close();
});

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.websocket.close());
const wsSpec = (path: string, over: Record<string, unknown> = {}) => specOf({ url: `${base}${path}`, protocol: 'websocket', timeoutSeconds: 2, ...over });

probeContract('websocket', () => probes.websocket, { pass: async () => wsSpec('/echo'), fail: async () => wsSpec('/echo', { url: 'ws://127.0.0.1:1/' }) });

describe('websocket probe', () => {
  test('the upgrade alone, a round trip, a greeting; the server\'s refusals are the reasons', async () => {
    assert.deepEqual(pick(await probes.websocket.check(wsSpec('/echo'))), { ok: true, statusCode: 101, reason: null });
    assert.equal((await probes.websocket.check(wsSpec('/echo', { ws_send: 'ping 1', ws_expected: 'echo: ping 1' }))).ok, true);
    assert.equal((await probes.websocket.check(wsSpec('/echo', { ws_send: 'ping 1' }))).ok, true, 'any reply will do without ws_expected');
    assert.equal((await probes.websocket.check(wsSpec('/hello', { ws_expected: 'v2' }))).ok, true);
    assert.equal((await probes.websocket.check(wsSpec('/hello', { ws_expected: 'v3', timeoutSeconds: 1 }))).reason, 'last message was "welcome v2", expected "v3"');
    assert.equal((await probes.websocket.check(wsSpec('/strict', { ws_send: 'hi' }))).reason, 'server closed the connection (1008 not allowed)');
    assert.equal((await probes.websocket.check(wsSpec('/strict', { ws_expected: 'x', timeoutSeconds: 1 }))).reason, 'no message within 1 s');
    refusing = true;
    try {
      assert.deepEqual(pick(await probes.websocket.check(wsSpec('/echo'))), { ok: false, statusCode: 503, reason: 'upgrade refused: 503 Service Unavailable' });
    } finally {
      refusing = false;
    }
  });
});

describe('websocket monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the server\'s 503, recovery', async () => {
    const created = await upDownRecover(p, { name: 'Live feed', url: `${base}/echo`, protocol: 'websocket', ws_send: 'ping', ws_expected: 'echo: ping', timeout: 2 }, {
      breakIt: () => void (refusing = true),
      reason: 'upgrade refused: 503 Service Unavailable',
      fixIt: () => void (refusing = false),
    });
    assert.deepEqual([created.ws_send, created.ws_expected], ['ping', 'echo: ping']);
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'http://host/feed', protocol: 'websocket' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /^url: must be a WebSocket URL/);
  });
});
