import { randomBytes } from 'node:crypto';

/**
 * The WebSocket framing a check needs (RFC 6455 §5): a client's masked frame, and a reader of the
 * server's unmasked frames that reassembles fragmented messages.
 */

/** RFC 6455 opcodes. */
export const OP = { text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** One client frame (FIN set, masked as RFC 6455 §5.3 requires of clients). */
export function clientFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, 0x80 | len]) : len < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, len >> 8, len & 0xff]) : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(len));
    return b;
  })()]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i % 4]!;
  return Buffer.concat([head, mask, body]);
}

/** A message or control frame from the server. */
export type ServerEvent = { kind: 'message'; text: string } | { kind: 'close'; code: number | null; reason: string } | { kind: 'ping'; payload: Buffer };

/**
 * Feeds bytes from the server, calls `emit` for each whole message (fragments joined), close and
 * ping. Messages above `maxBytes` are cut to it (a check reads the first part only).
 */
export function frameReader(emit: (e: ServerEvent) => void, maxBytes = 1024 * 1024): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  let parts: Buffer[] = [];
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const fin = (buf[0]! & 0x80) !== 0;
      const opcode = buf[0]! & 0x0f;
      const masked = (buf[1]! & 0x80) !== 0;
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      const maskAt = at;
      if (masked) at += 4;
      if (buf.length < at + len) return;
      const payload = Buffer.from(buf.subarray(at, at + len));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= buf[maskAt + (i % 4)]!;
      buf = buf.subarray(at + len);
      if (opcode === OP.close) emit({ kind: 'close', code: payload.length >= 2 ? payload.readUInt16BE(0) : null, reason: payload.subarray(2).toString('utf8') });
      else if (opcode === OP.ping) emit({ kind: 'ping', payload });
      else if (opcode === OP.pong) continue;
      else {
        if (parts.reduce((n, p) => n + p.length, 0) < maxBytes) parts.push(payload);
        if (fin) {
          emit({ kind: 'message', text: Buffer.concat(parts).subarray(0, maxBytes).toString('utf8') });
          parts = [];
        }
      }
    }
  };
}
