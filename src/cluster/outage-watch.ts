import type { Logger } from '../lib/logger.ts';
import type { ClusterChange } from '../domain/cluster.ts';

/**
 * A database outage or a partition? (issue 31 point 5.) A leader that loses the database cannot tell
 * "down for everyone" from "I alone am cut off" by itself; its peers can. It asks each live peer's
 * `/healthz` (addresses from the last heartbeat's instances listing, in memory) over HTTP.
 */

/** What one peer said. `gone`: nothing listens at its address (connection refused: not running). */
export type PeerState = 'unreachable' | 'reachable' | 'leads' | 'keeps' | 'gone' | 'unknown';

/** Asks one peer (`host:port`) within `timeoutMs`; never throws. */
export async function askPeer(address: string, timeoutMs: number): Promise<PeerState> {
  try {
    const res = await fetch(`http://${address}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { leader?: unknown; keepsChecks?: unknown; database?: unknown };
    if (body.leader === true) return 'leads';
    if (body.keepsChecks === true) return 'keeps';
    if (body.database === 'unreachable') return 'unreachable';
    // An older version (no `database`) counts as one that may reach it.
    return body.database === 'reachable' ? 'reachable' : 'unknown';
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code;
    return code === 'ECONNREFUSED' ? 'gone' : 'unknown';
  }
}

/**
 * The verdict over the peers' answers: `outage` when every peer still running says it cannot reach
 * the database either and none leads or keeps checks (no peer running at all is `outage` too: nobody
 * could take over); `partition` otherwise — one reaches the database, leads, keeps checks, or did not
 * answer in time (it might reach the database: the safe reading).
 */
export function verdictOf(states: readonly PeerState[]): 'outage' | 'partition' {
  return states.every((s) => s === 'unreachable' || s === 'gone') ? 'outage' : 'partition';
}

/**
 * Watches a database outage from the leader that lost the database (src/cluster/postgres.ts): asks the
 * peers at once and then every `periodMs` until {@link end}. While every peer agrees the database is
 * unreachable, `confirmed` is true (the checks go on, alerts go straight to their channels); a first
 * verdict `partition`, or later a peer that leads, keeps checks or does not answer, calls `stop(why)`
 * once and the watch ends. `answerMs` bounds each question: the
 * first verdict must come before another instance could take the lease over.
 */
export class OutageWatch {
  #state: 'off' | 'asking' | 'confirmed' = 'off';
  #timer: NodeJS.Timeout | null = null;
  #round = 0;

  constructor(private readonly deps: { peers: () => readonly string[]; periodMs: number; answerMs: number; logger: Logger; stop: (why: string) => void }) {}

  /** True while every peer has said the database is unreachable (since the last question). */
  get confirmed(): boolean {
    return this.#state === 'confirmed';
  }

  /** True from {@link begin} until the watch ends (stopped or ended). */
  get active(): boolean {
    return this.#state !== 'off';
  }

  /** Starts asking (now, then every period); the leader work keeps its checks meanwhile. */
  begin(): void {
    if (this.#state !== 'off') return;
    this.#state = 'asking';
    void this.#ask(++this.#round);
  }

  /** Ends the watch (leadership renewed, lost to another instance, or shutdown). */
  end(): void {
    this.#state = 'off';
    this.#round++;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #ask(round: number): Promise<void> {
    const peers = this.deps.peers();
    const states = await Promise.all(peers.map((p) => askPeer(p, this.deps.answerMs)));
    if (round !== this.#round) return;
    const told = peers.map((p, i) => `${p} ${states[i]}`).join(', ');
    // Asked again once confirmed, a peer that reaches the database again is expected (the database is
    // coming back; this instance renews at once and followers wait a renewal period): only a peer that
    // leads, keeps checks, or cannot tell ends the watch then.
    const stop = this.#state === 'asking' ? verdictOf(states) === 'partition' : states.some((x) => x === 'leads' || x === 'keeps' || x === 'unknown');
    if (stop) {
      this.end();
      this.deps.stop(`another instance may reach the database or lead (${told})`);
      return;
    }
    if (this.#state === 'asking') this.deps.logger.warn(`database outage: every other instance reports the database unreachable too (${told || 'none running'}); this instance, the last leader, keeps checking, buffers results and sends alerts straight to their channels until the database is back`);
    this.#state = 'confirmed';
    this.#timer = setTimeout(() => void this.#ask(round), this.deps.periodMs);
    this.#timer.unref();
  }
}

/**
 * Cuts committed changes into NOTIFY payloads (`{from, changes}` JSON) of at most about `maxBytes`
 * each (PostgreSQL refuses payloads of 8000 bytes or more), in order.
 */
export function changePayloads(from: string, changes: readonly ClusterChange[], maxBytes: number): string[] {
  const out: string[] = [];
  let batch: ClusterChange[] = [];
  let bytes = 0;
  const cut = () => {
    if (batch.length > 0) out.push(JSON.stringify({ from, changes: batch }));
    batch = [];
    bytes = 0;
  };
  for (const change of changes) {
    const size = JSON.stringify(change).length + 1;
    if (bytes + size > maxBytes) cut();
    batch.push(change);
    bytes += size;
  }
  cut();
  return out;
}
