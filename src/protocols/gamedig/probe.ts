import { GameDig } from 'gamedig';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/**
 * The cause of a failed gamedig query as a reason. gamedig throws `Failed all N attempts` and keeps
 * each attempt's error only in the stack (`Attempt #1 - Port=27015 Retry=0:\nError: UDP - Timed out
 * after 2000ms\n    at …`), so the last attempt's first line is read from there.
 */
export function gamedigReason(err: unknown, host: string, timeoutSeconds: number): string {
  const e = err as { message?: unknown; stack?: unknown; code?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (/^Invalid game: /.test(message)) return `unknown game "${message.slice('Invalid game: '.length)}" (not in gamedig's games list)`;
  let cause = message;
  if (message.startsWith('Failed all') && typeof e.stack === 'string') {
    const lines = e.stack.split('\n');
    const at = lines.findLastIndex((l) => /^Attempt #\d+ - Port=/.test(l));
    if (at >= 0 && lines[at + 1]) cause = lines[at + 1]!.replace(/^\w*Error: /, '');
  }
  if (/^UDP - Timed out/.test(cause)) return `no answer within ${timeoutSeconds} s`;
  if (/^(Attempt|TCP|TCP Opening) - Timed out/.test(cause)) return `Timeout after ${timeoutSeconds} s`;
  if (/TCP Connection Refused|ECONNREFUSED/.test(cause)) return 'Connection refused';
  if (typeof e.code === 'string') return describeNetworkError(err, host, timeoutSeconds);
  if (/ENOTFOUND|EAI_AGAIN/.test(cause)) return `DNS lookup failed for ${host}`;
  return `query failed: ${cause}`;
}

/**
 * Game-server checks with the `gamedig` package (ESM; this file, and so the package, is loaded on
 * the first gamedig check): one query with the game's protocol, one attempt, no player or rule
 * lists (the server's info answer is the check), the check's timeout as the wait for each answer.
 * One GameDig instance per probe, so one UDP socket for every query, closed with the probe.
 * gamedig binds its sockets itself: `probe.source_address` is not applied.
 * Reasons: `no answer within 5 s`, `Connection refused`, `Timeout after 5 s`, `unknown game "x"`,
 * `query failed: <gamedig's words>`.
 */
export const gamedigProbe: ProbeFactory = () => {
  const dig = new GameDig();
  return {
    async check(spec): Promise<CheckOutcome> {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const ms = spec.timeoutSeconds * 1000;
      try {
        await dig.query({
          type: String(spec.settings.gamedig_game ?? ''),
          host: spec.target.host,
          ...(spec.target.port !== null ? { port: spec.target.port } : {}),
          givenPortOnly: spec.settings.gamedig_given_port_only !== false,
          // The socket's wait first, so UDP silence reads as such; the attempt's limit only backs it.
          socketTimeout: ms,
          attemptTimeout: ms + 500,
          maxRetries: 1,
          requestPlayers: false,
          requestRules: false,
        });
        return { ok: true, latencyMs: latency(), statusCode: 0, reason: null };
      } catch (e) {
        return { ok: false, latencyMs: latency(), statusCode: 0, reason: gamedigReason(e, spec.target.host, spec.timeoutSeconds) };
      }
    },
    async close() {
      dig.queryRunner.udpSocket.socket?.close();
    },
  };
};
