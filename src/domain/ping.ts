import type { Healthcheck, HealthcheckStatus } from './healthcheck.ts';

/**
 * What a ping says (CONTRACT.md "Healthchecks", the signals cron users know from Healthchecks.io):
 * `success` (`/ping/<tok>` or exit code 0), `start` (`/ping/<tok>/start`, the job began) and `fail`
 * (`/ping/<tok>/fail` or a non-zero exit code).
 */
export type PingKind = 'success' | 'start' | 'fail';

/** A ping's signal: its kind and, for `/ping/<tok>/<code>`, the exit code (0–255). */
export interface PingSignal {
  kind: PingKind;
  exitCode: number | null;
}

/** A received ping. `at` is epoch ms; `body` is at most MAX_PING_BODY_BYTES of the POST body. */
export interface Ping extends PingSignal {
  at: number;
  method: string;
  sourceIp: string | null;
  userAgent: string | null;
  body: string | null;
}

/** A stored ping, numbered per healthcheck from 1. `durationMs` is set on a success/fail that follows a start. */
export interface StoredPing extends Ping {
  n: number;
  durationMs: number | null;
}

/**
 * The path segment after the token → signal: none → success, `start`, `fail`, `0`–`255` → exit
 * code (0 success, else fail). Anything else → null (the endpoint answers 404).
 */
export function parsePingSignal(segment: string | undefined): PingSignal | null {
  if (segment === undefined || segment === '') return { kind: 'success', exitCode: null };
  if (segment === 'start') return { kind: 'start', exitCode: null };
  if (segment === 'fail') return { kind: 'fail', exitCode: null };
  if (/^\d{1,3}$/.test(segment)) {
    const code = Number(segment);
    if (code <= 255) return { kind: code === 0 ? 'success' : 'fail', exitCode: code };
  }
  return null;
}

/** What a ping does to a healthcheck: its next status and clock start, and whether that is a flip. */
export interface PingEffect {
  status: HealthcheckStatus;
  clockStartAt: number;
  flip: 'up' | 'down' | null;
}

/**
 * The healthcheck state machine for pings (pure). A success restarts the clock and, after `down`,
 * flips to `up`; a fail flips to `down` at once; a start changes nothing but the last ping. A paused
 * healthcheck records pings and changes no state (resume restarts its clock). A down healthcheck
 * whose outage a person resolved (`reopen`, issue 33 point 11) takes a fail as a `down` flip again:
 * a new outage opens.
 */
export function applyPing(hc: Pick<Healthcheck, 'status' | 'paused' | 'clockStartAt'> & { reopen?: boolean }, ping: Pick<Ping, 'kind' | 'at'>): PingEffect {
  if (hc.paused || ping.kind === 'start') return { status: hc.status, clockStartAt: hc.clockStartAt, flip: null };
  if (ping.kind === 'success') return { status: 'up', clockStartAt: ping.at, flip: hc.status === 'down' ? 'up' : null };
  return { status: 'down', clockStartAt: hc.clockStartAt, flip: hc.status === 'up' || hc.reopen === true ? 'down' : null };
}

/** Human text for the outage a fail signal opens. */
export function failDescription(signal: PingSignal): string {
  return signal.exitCode !== null ? `Job exited with code ${signal.exitCode}` : 'Job reported failure';
}
