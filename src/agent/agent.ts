import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import type { AgentResult, AssignedCheck, PollAnswer } from '../domain/probe.ts';
import type { Region } from '../domain/regions.ts';
import { createProbes } from '../engine/probes/index.ts';
import type { Probe } from '../engine/probes/types.ts';
import { CheckWheel, firstDueAt, type WheelResult } from '../engine/wheel.ts';
import type { Protocol } from '../domain/monitor.ts';

/** Settings of `pharos agent` (CLI flags). Durations in ms. */
export interface AgentOptions {
  /** Base URL of the main, e.g. `https://pharos.example.com`. */
  server: string;
  /** A `probe`-scope API token (never logged). */
  token: string;
  region: Region;
  /** Shown in `GET /v1/probes`; default the host name. */
  name: string;
  version: string;
  /** Local address checks are made from (`--source-address`). */
  sourceAddress?: string | undefined;
  userAgent: string;
  maxConcurrentChecks: number;
  /** Results kept while the main is unreachable; beyond it the oldest are dropped (and counted). */
  bufferLimit: number;
  /** Results per pushed batch. */
  batchSize: number;
  /** How often buffered results are pushed; failures and re-check results are pushed at once. */
  pushIntervalMs: number;
}

/** What an agent reports about itself (tests, logs). */
export interface AgentStats {
  checks: number;
  buffered: number;
  dropped: number;
  delivered: number;
  connected: boolean;
}

/** Longest wait between attempts to reach the main (below the main's default agent_offline_seconds, 10 s). */
const MAX_BACKOFF_MS = 2_000;
/** A poll the main holds longer than this is given up (a silent network), then polled again. */
const POLL_TIMEOUT_MS = 90_000;

/**
 * `pharos agent` (issue #7): polls the main for the checks of its region (`POST /v1/probes/poll`,
 * a long poll, so changes arrive within a round trip and nothing busy-polls), runs them on its own
 * {@link CheckWheel} with the same probes as the main, and pushes results in batches
 * (`POST /v1/probes/results`). While the main is unreachable it keeps checking and buffers up to
 * `bufferLimit` results (oldest dropped, counted); a batch keeps its id across retries, so the
 * main stores it once. A restart is a new agent (new `prb_…` id) that the main assigns afresh.
 */
export class ProbeAgent {
  /** This run's agent id. */
  readonly id = newId(ID_PREFIX.probe);
  readonly #probes: Record<Protocol, Probe>;
  readonly #wheel: CheckWheel<string>;
  readonly #keys = new Map<string, number>();
  /** monitor uuid → JSON of its spec and frequency (an unchanged check keeps its timer). */
  readonly #signatures = new Map<string, string>();
  #nextKey = 1;
  #assignment: string | null = null;
  #queue: AgentResult[] = [];
  #batch: { id: string; results: AgentResult[] } | null = null;
  #seq = 0;
  #dropped = 0;
  #delivered = 0;
  /** null until the first poll ends, so a main that refuses the agent from its start (e.g. a token not granted its region) is logged too. */
  #connected: boolean | null = null;
  #stopped = false;
  readonly #abort = new AbortController();
  #pushTimer: TimerHandle | null = null;
  #pushing: Promise<void> | null = null;
  #loops: Promise<void>[] = [];

  constructor(
    private readonly options: AgentOptions,
    private readonly deps: { clock: Clock; logger: Logger },
  ) {
    this.#probes = createProbes({ sourceAddress: options.sourceAddress, userAgent: options.userAgent });
    this.#wheel = new CheckWheel<string>({
      clock: deps.clock,
      logger: deps.logger,
      probes: this.#probes,
      metrics: { checkDone() {}, schedulerLag() {} },
      maxConcurrentChecks: options.maxConcurrentChecks,
      onResult: (r) => this.#onResult(r),
    });
  }

  /** Starts polling and pushing. */
  start(): void {
    this.#loops.push(this.#pollLoop());
    this.#schedulePush(this.options.pushIntervalMs);
  }

  /** Counters for logs and tests. */
  stats(): AgentStats {
    return { checks: this.#wheel.size, buffered: this.#queue.length + (this.#batch?.results.length ?? 0), dropped: this.#dropped, delivered: this.#delivered, connected: this.#connected === true };
  }

  /** Resolves when no check is in flight (tests on a manual clock). */
  settled(): Promise<void> {
    return this.#wheel.settled();
  }

  /** Stops checking, tries once more to deliver what is buffered, and closes the probes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    this.#pushTimer?.cancel();
    await this.#wheel.stop();
    await Promise.allSettled(this.#loops);
    await this.#pushing;
    await this.#push();
    await Promise.all(Object.values(this.#probes).map((p) => p.close()));
  }

  /** POSTs JSON to the main; a poll is also cut short by `stop()`, a push only by its timeout. */
  async #call(path: string, body: unknown, timeoutMs: number, stoppable: boolean): Promise<Response> {
    const timeout = AbortSignal.timeout(timeoutMs);
    return fetch(new URL(path, this.options.server), {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.options.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: stoppable ? AbortSignal.any([this.#abort.signal, timeout]) : timeout,
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = this.deps.clock.setTimer(ms, resolve);
      this.#abort.signal.addEventListener('abort', () => {
        t.cancel();
        resolve();
      });
    });
  }

  #setConnected(connected: boolean, why?: string): void {
    if (this.#connected === connected) return;
    this.#connected = connected;
    if (connected) this.deps.logger.info('connected to the main', { agent: this.id, region: this.options.region, server: this.options.server });
    else this.deps.logger.warn('main unreachable; checking on and buffering results', { agent: this.id, error: why });
  }

  async #pollLoop(): Promise<void> {
    let backoff = 500;
    while (!this.#stopped) {
      try {
        const res = await this.#call(
          '/v1/probes/poll',
          {
            agent: this.id,
            region: this.options.region,
            name: this.options.name,
            version: this.options.version,
            sourceAddress: this.options.sourceAddress ?? null,
            assignment: this.#assignment,
            droppedResults: this.#dropped,
          },
          POLL_TIMEOUT_MS,
          true,
        );
        if (!res.ok) throw new Error(`poll answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
        this.#apply((await res.json()) as PollAnswer);
        this.#setConnected(true);
        backoff = 500;
      } catch (e) {
        if (this.#stopped) return;
        this.#setConnected(false, (e as Error).message);
        await this.#sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
  }

  #apply(answer: PollAnswer): void {
    if (answer.checks) this.#reconcile(answer.checks);
    this.#assignment = answer.assignment;
    for (const uuid of answer.rechecks) {
      const key = this.#keys.get(uuid);
      if (key !== undefined) this.#wheel.recheck(key, 0);
    }
  }

  /** Makes the wheel hold exactly `checks`; an unchanged check keeps its timer and rhythm. */
  #reconcile(checks: AssignedCheck[]): void {
    const now = this.deps.clock.now();
    const keep = new Set<string>();
    for (const c of checks) {
      keep.add(c.monitor);
      const signature = JSON.stringify([c.spec, c.frequencySeconds]);
      if (this.#signatures.get(c.monitor) === signature) continue;
      let key = this.#keys.get(c.monitor);
      if (key === undefined) this.#keys.set(c.monitor, (key = this.#nextKey++));
      this.#signatures.set(c.monitor, signature);
      const frequencyMs = c.frequencySeconds * 1000;
      const due = c.nextDueAt === null ? firstDueAt(c.monitor, this.options.region, frequencyMs, now) : Math.max(now, c.nextDueAt);
      this.#wheel.upsert(key, { spec: c.spec, frequencyMs, tag: c.monitor }, due);
    }
    for (const [uuid, key] of this.#keys) {
      if (keep.has(uuid)) continue;
      this.#wheel.remove(key);
      this.#keys.delete(uuid);
      this.#signatures.delete(uuid);
    }
  }

  #onResult(r: WheelResult<string>): void {
    const o = r.outcome;
    this.#queue.push({
      monitor: r.tag,
      at: r.at,
      ok: o.ok,
      latencyMs: o.latencyMs,
      statusCode: o.statusCode,
      reason: o.reason,
      ...(o.sslExpirationDays !== undefined ? { sslExpirationDays: o.sslExpirationDays } : {}),
      ...(o.degraded ? { degraded: true } : {}),
    });
    const over = this.#queue.length + (this.#batch?.results.length ?? 0) - this.options.bufferLimit;
    if (over > 0) {
      this.#queue.splice(0, over);
      this.#dropped += over;
    }
    // A failure (or a re-check's answer) is what confirmation waits for: send it now.
    if (!o.ok || r.kind === 'recheck') this.#schedulePush(0);
  }

  #schedulePush(delayMs: number): void {
    if (this.#stopped) return;
    this.#pushTimer?.cancel();
    this.#pushTimer = this.deps.clock.setTimer(delayMs, () => {
      this.#pushTimer = null;
      if (this.#pushing) {
        // One push at a time; the running one is followed by another soon.
        this.#pushing.then(() => this.#schedulePush(0));
        return;
      }
      this.#pushing = this.#push().finally(() => {
        this.#pushing = null;
        this.#schedulePush(this.#connected || this.stats().buffered === 0 ? this.options.pushIntervalMs : MAX_BACKOFF_MS);
      });
    });
  }

  /** Sends buffered results batch by batch until the buffer is empty or the main fails. */
  async #push(): Promise<void> {
    while (this.#batch || this.#queue.length > 0) {
      this.#batch ??= { id: String(++this.#seq), results: this.#queue.splice(0, this.options.batchSize) };
      const batch = this.#batch;
      try {
        const res = await this.#call('/v1/probes/results', { agent: this.id, region: this.options.region, batch: batch.id, results: batch.results }, this.#stopped ? 5_000 : 30_000, false);
        // 409: the main does not know this agent yet (it restarted); the next poll registers it, so keep the batch.
        if (res.status >= 500 || res.status === 429 || res.status === 401 || res.status === 403 || res.status === 409) throw new Error(`results answered ${res.status}`);
        if (!res.ok) {
          // The main refuses this batch as malformed: retrying cannot help.
          this.deps.logger.error('main refused a result batch; dropped', { status: res.status, error: (await res.text()).slice(0, 200), results: batch.results.length });
          this.#dropped += batch.results.length;
        } else this.#delivered += batch.results.length;
        this.#batch = null;
      } catch (e) {
        this.#setConnected(false, (e as Error).message);
        return;
      }
    }
  }
}
