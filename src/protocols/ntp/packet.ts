/**
 * The NTP packet a check needs (RFC 5905 §7.3; SNTP, RFC 4330): the client's request and the
 * server's answer with its timestamps as Unix ms. NTP time counts seconds since 1900-01-01 in a
 * 32.32 fixed-point number.
 */

/** Seconds from 1900-01-01 (NTP's era 0) to 1970-01-01. */
export const NTP_UNIX_OFFSET_S = 2_208_988_800;

/** Writes Unix ms `ms` as an NTP timestamp at `at`. */
export function writeNtpTime(buf: Buffer, at: number, ms: number): void {
  const s = Math.floor(ms / 1000);
  buf.writeUInt32BE((s + NTP_UNIX_OFFSET_S) >>> 0, at);
  buf.writeUInt32BE(Math.floor(((ms - s * 1000) / 1000) * 2 ** 32) >>> 0, at + 4);
}

/** Reads an NTP timestamp at `at` as Unix ms (era 0). */
export function readNtpTime(buf: Buffer, at: number): number {
  return (buf.readUInt32BE(at) - NTP_UNIX_OFFSET_S) * 1000 + (buf.readUInt32BE(at + 4) / 2 ** 32) * 1000;
}

/** A client request (LI 0, version 4, mode 3) whose transmit timestamp is `nowMs`. */
export function ntpRequest(nowMs: number): Buffer {
  const b = Buffer.alloc(48);
  b[0] = (0 << 6) | (4 << 3) | 3;
  writeNtpTime(b, 40, nowMs);
  return b;
}

/** The fields of a server's answer a check reads. */
export interface NtpAnswer {
  leap: number;
  version: number;
  mode: number;
  stratum: number;
  /** The reference id as 4 ASCII characters (a kiss code such as `RATE` when stratum is 0). */
  refId: string;
  /** The request's transmit time the server echoes (T1), Unix ms. */
  originMs: number;
  /** When the server received the request (T2) and sent the answer (T3), Unix ms. */
  receiveMs: number;
  transmitMs: number;
}

/** Parses a server's answer. @throws Error when it is shorter than 48 bytes */
export function parseNtp(b: Buffer): NtpAnswer {
  if (b.length < 48) throw new Error(`short NTP answer (${b.length} bytes)`);
  return {
    leap: b[0]! >> 6,
    version: (b[0]! >> 3) & 7,
    mode: b[0]! & 7,
    stratum: b[1]!,
    refId: b.subarray(12, 16).toString('latin1').replace(/\0+$/, ''),
    originMs: readNtpTime(b, 24),
    receiveMs: readNtpTime(b, 32),
    transmitMs: readNtpTime(b, 40),
  };
}
