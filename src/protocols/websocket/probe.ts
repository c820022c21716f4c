import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest, STATUS_CODES, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';
import { clientFrame, frameReader, OP } from './frames.ts';

/** RFC 6455 §1.3: the GUID the server appends to the key before hashing. */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A short, quoted piece of a message for a reason. */
const quote = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

/**
 * WebSocket checks, the handshake done by Pharos itself over node:http (so a refused upgrade names
 * the server's status: `upgrade refused: 403 Forbidden`): GET with `Upgrade: websocket`, a random
 * key, version 13, the User-Agent, from `probe.source_address` when set; up on 101 with the right
 * `Sec-WebSocket-Accept`. With `ws_send` it is sent as one text message; with `ws_expected` (or
 * `ws_send`) a message must arrive within the timeout (containing `ws_expected` when set). Then a
 * 1000 close. Reasons: `upgrade refused: 404 Not Found`, `server did not switch protocols`,
 * `wrong Sec-WebSocket-Accept`, `server closed the connection (1008 policy violation)`, `no message
 * within 5 s`, `last message was "…", expected "…"`, TLS and network errors.
 */
export const websocketProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const ms = spec.timeoutSeconds * 1000;
    const send = (spec.settings.ws_send as string | null | undefined) ?? null;
    const expected = (spec.settings.ws_expected as string | null | undefined) ?? null;
    const u = new URL(spec.target.url);
    const key = randomBytes(16).toString('base64');
    let socket: Duplex | null = null;
    let request: ReturnType<typeof httpRequest> | null = null;
    let status = 0;
    let timer: NodeJS.Timeout | undefined;
    try {
      const reason = await new Promise<string | null>((resolve) => {
        let last: string | null = null;
        let switched = false;
        timer = setTimeout(() => {
          if (!switched) resolve(`Timeout after ${spec.timeoutSeconds} s`);
          else resolve(last === null ? `no message within ${spec.timeoutSeconds} s` : `last message was ${quote(last)}, expected ${quote(expected ?? '')}`);
        }, ms);
        const req = (request = (u.protocol === 'wss:' ? httpsRequest : httpRequest)({
          host: spec.target.host,
          port: spec.target.port ?? (u.protocol === 'wss:' ? 443 : 80),
          path: `${u.pathname}${u.search}`,
          method: 'GET',
          headers: { host: u.host, connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': key, 'sec-websocket-version': '13', 'user-agent': options.userAgent },
          ...(u.protocol === 'wss:' ? { servername: spec.target.host } : {}),
          ...(options.sourceAddress ? { localAddress: options.sourceAddress } : {}),
          agent: false,
        }));
        req.on('error', (e) => resolve(describeNetworkError(e, spec.target.host, spec.timeoutSeconds)));
        req.on('response', (res: IncomingMessage) => {
          res.resume();
          status = res.statusCode ?? 0;
          resolve(`upgrade refused: ${res.statusCode} ${res.statusMessage || STATUS_CODES[res.statusCode ?? 0] || ''}`.trim());
        });
        req.on('upgrade', (res: IncomingMessage, s: Duplex, head: Buffer) => {
          socket = s;
          switched = true;
          status = res.statusCode ?? 0;
          const accept = createHash('sha1').update(key + GUID).digest('base64');
          if (res.statusCode !== 101) return resolve('server did not switch protocols');
          if (res.headers['sec-websocket-accept'] !== accept) return resolve('wrong Sec-WebSocket-Accept');
          if (send === null && expected === null) return resolve(null);
          const read = frameReader((ev) => {
            if (ev.kind === 'ping') s.write(clientFrame(OP.pong, ev.payload));
            else if (ev.kind === 'close') resolve(`server closed the connection${ev.code !== null ? ` (${ev.code}${ev.reason ? ` ${ev.reason}` : ''})` : ''}`);
            else {
              last = ev.text;
              if (expected === null || ev.text.includes(expected)) resolve(null);
            }
          });
          s.on('data', read);
          s.on('error', (e) => resolve(describeNetworkError(e, spec.target.host, spec.timeoutSeconds)));
          s.on('close', () => resolve('server closed the connection'));
          if (head.length) read(head);
          if (send !== null) s.write(clientFrame(OP.text, Buffer.from(send, 'utf8')));
        });
        req.end();
      });
      return { ok: reason === null, latencyMs: latency(), statusCode: status, reason };
    } finally {
      clearTimeout(timer);
      if (!socket) (request as ReturnType<typeof httpRequest> | null)?.destroy();
      const s = socket as Duplex | null;
      if (s && !s.destroyed) {
        const bye = Buffer.alloc(2);
        bye.writeUInt16BE(1000);
        s.end(clientFrame(OP.close, bye));
        setTimeout(() => s.destroy(), 1000).unref();
      }
    }
  },
  async close() {},
});
