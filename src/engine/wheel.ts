import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { TimerQueue } from '../lib/timer-queue.ts';
import type { CheckOutcome } from '../domain/check.ts';
import type { Protocol } from '../domain/monitor.ts';
import type { Probe, ProbeSpec } from './probes/types.ts';
import { DescriptorBudget, isDescriptorExhaustionReason } from './connections.ts';

/** What the engine reports to metrics. Durations in ms. */
export interface EngineMetrics {
  checkDone(protocol: Protocol, ok: boolean, durationMs: number): void;
  /** ms between a check's due time and its probe start. */
  schedulerLag(lagMs: number): void;
  /** A failure that the other locations or the re-checks did not confirm. */
  unconfirmedFailure(): void;
  /** An HTTP timing phase, ms (see ProbeOptions.observePhase). */
  httpPhase(phase: 'connect' | 'ttfb' | 'body', ms: number): void;
  /** A check met EMFILE/ENFILE (Pharos out of file descriptors); it is retried, not reported. */
  descriptorsExhausted(): void;
}

/** First checks of new (or restarted) monitors are spread over at most this window, ms. */
const SPREAD_MS = 10_000;

/** A stable number in [0, mod) from a string: spreads first checks without randomness. */
export function phase(key: string, mod: number): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return (h >>> 0) % Math.max(1, mod);
}

/**
 * When a check with no due time of its own starts: a stable offset within its frequency (at most
 * 10 s) from the monitor's uuid and the region, so 10,000 new monitors do not fire together, and
 * the regions of one monitor check it at different moments of its interval (a failure is seen
 * sooner, and confirmed by the other regions' immediate re-checks).
 */
export function firstDueAt(monitorUuid: string, region: string, frequencyMs: number, now: number): number {
  return now + phase(`${monitorUuid}/${region}`, Math.min(frequencyMs, SPREAD_MS));
}

/** One check the wheel runs every `frequencyMs`; `tag` is the owner's (passed back with results). */
export interface WheelCheck<T> {
  spec: ProbeSpec;
  frequencyMs: number;
  tag: T;
}

/** One finished check: `at` is the probe start and `dueAt` the slot it ran for (epoch ms). */
export interface WheelResult<T> {
  tag: T;
  at: number;
  dueAt: number;
  outcome: CheckOutcome;
  /** `recheck` for an extra check asked by confirmation (outside the frequency's slots). */
  kind: 'scheduled' | 'recheck';
}

interface Entry<T> {
  check: WheelCheck<T>;
  /** Bumped on every replacement so a result of an outdated check is dropped. */
  generation: number;
}

/**
 * The timer wheel both the main's local probe and `pharos agent` run checks on: one timer per
 * check (a heap, see TimerQueue), each check run through its protocol's probe with at most
 * `maxConcurrentChecks` in flight, the next slot at `dueAt + frequency` (a check that overran
 * skips the missed slots instead of bursting), and extra re-checks that leave the slots alone.
 * Checks in flight are also bounded by the file descriptors left ({@link DescriptorBudget}); a
 * check that still meets EMFILE/ENFILE is retried (backing off, at most 1 s apart) until it runs,
 * never reported as the target failing.
 * Re-check timers use the negative key, so a key must be > 0.
 */
export class CheckWheel<T> {
  readonly #entries = new Map<number, Entry<T>>();
  readonly #timers: TimerQueue;
  readonly #waiting: Array<() => void> = [];
  readonly #inFlight = new Set<Promise<void>>();
  #running = 0;
  #stopped = false;

  constructor(
    private readonly deps: {
      clock: Clock;
      logger: Logger;
      probes: Record<Protocol, Probe>;
      metrics: Pick<EngineMetrics, 'checkDone' | 'schedulerLag'> & Partial<Pick<EngineMetrics, 'descriptorsExhausted'>>;
      maxConcurrentChecks: number;
      /** Default: from this process's RLIMIT_NOFILE and open descriptors. */
      descriptors?: DescriptorBudget;
      onResult: (result: WheelResult<T>) => void;
    },
  ) {
    this.#timers = new TimerQueue(deps.clock);
    this.#descriptors = deps.descriptors ?? new DescriptorBudget();
  }

  readonly #descriptors: DescriptorBudget;

  /** Checks that may be in flight now (config bound and descriptor bound). */
  get #capacity(): number {
    return Math.min(this.deps.maxConcurrentChecks, this.#descriptors.capacity);
  }

  /** Checks with a live timer. */
  get size(): number {
    return this.#entries.size;
  }

  /** Adds or replaces the check of `key`, first due at `dueAt` (epoch ms); a result of the replaced one in flight is dropped. */
  upsert(key: number, check: WheelCheck<T>, dueAt: number): void {
    if (this.#stopped) return;
    const entry = { check, generation: (this.#entries.get(key)?.generation ?? 0) + 1 };
    this.#entries.set(key, entry);
    this.#timers.cancel(-key);
    this.#schedule(key, entry, dueAt);
  }

  /** Removes the check of `key` (a result in flight is dropped). */
  remove(key: number): void {
    this.#timers.cancel(key);
    this.#timers.cancel(-key);
    this.#entries.delete(key);
  }

  /** Runs one extra check of `key` after `delayMs`, outside its slots (replaces a pending re-check). */
  recheck(key: number, delayMs: number): void {
    const entry = this.#entries.get(key);
    if (!entry || this.#stopped) return;
    const gen = entry.generation;
    this.#timers.schedule(-key, this.deps.clock.now() + delayMs, (dueAt) => {
      if (this.#entries.get(key) === entry && entry.generation === gen) this.#admit(key, entry, dueAt, 'recheck');
    });
  }

  /** Due time (epoch ms) of the next scheduled check of `key`, or undefined. */
  nextDueAt(key: number): number | undefined {
    return this.#timers.dueAt(key);
  }

  /** Resolves when no check is in flight. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops every timer and waits for checks in flight (their results are dropped). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timers.clear();
    this.#waiting.length = 0;
    await this.settled();
  }

  #schedule(key: number, entry: Entry<T>, at: number): void {
    const gen = entry.generation;
    this.#timers.schedule(key, at, (dueAt) => {
      if (this.#entries.get(key) !== entry || entry.generation !== gen) return;
      this.#admit(key, entry, dueAt, 'scheduled');
    });
  }

  /** Starts the check now, or queues it when `maxConcurrentChecks` are in flight. */
  #admit(key: number, entry: Entry<T>, dueAt: number, kind: WheelResult<T>['kind']): void {
    const start = () => {
      const p = this.#run(key, entry, dueAt, kind).finally(() => {
        this.#inFlight.delete(p);
        this.#running--;
        while (this.#running < this.#capacity && this.#waiting.length > 0) this.#waiting.shift()!();
      });
      this.#inFlight.add(p);
    };
    if (this.#running < this.#capacity) {
      this.#running++;
      start();
    } else {
      this.#waiting.push(() => {
        this.#running++;
        start();
      });
    }
  }

  async #run(key: number, entry: Entry<T>, dueAt: number, kind: WheelResult<T>['kind']): Promise<void> {
    const { clock, probes, metrics, logger } = this.deps;
    const { check, generation } = entry;
    let at = clock.now();
    if (kind === 'scheduled') metrics.schedulerLag(Math.max(0, at - dueAt));
    let outcome: CheckOutcome;
    for (let attempt = 1; ; attempt++) {
      try {
        outcome = await probes[check.spec.protocol].check(check.spec);
      } catch (e) {
        // Probes never throw by contract; this keeps a broken probe from stopping the check.
        logger.error('probe threw', { error: (e as Error).message });
        outcome = { ok: false, latencyMs: 0, statusCode: 0, reason: `Probe error: ${(e as Error).message}` };
      }
      if (outcome.ok || !isDescriptorExhaustionReason(outcome.reason)) break;
      // Pharos's fault, not the target's: fewer checks in flight, and this one again after a pause.
      metrics.descriptorsExhausted?.();
      if (this.#descriptors.exhausted(this.#running)) {
        logger.warn('checks are running out of file descriptors (EMFILE/ENFILE): queueing them and retrying; raise the nofile limit (LimitNOFILE=) to run more at once', {
          inFlight: this.#running,
          nowAllowed: this.#descriptors.capacity,
        });
      }
      if (this.#stopped || this.#entries.get(key) !== entry || entry.generation !== generation) return;
      await sleep(Math.min(1_000, 10 * 2 ** attempt));
      at = clock.now();
    }
    this.#descriptors.clean();
    metrics.checkDone(check.spec.protocol, outcome.ok, outcome.latencyMs);
    if (this.#stopped || this.#entries.get(key) !== entry || entry.generation !== generation) return;
    try {
      this.deps.onResult({ tag: check.tag, at, dueAt, outcome, kind });
    } catch (e) {
      logger.error('handling a check result failed', { error: (e as Error).message });
    }
    // The handler may have replaced or removed this check (a plan change); then its timer is new.
    if (kind === 'recheck' || this.#stopped || this.#entries.get(key) !== entry || entry.generation !== generation) return;
    const now = clock.now();
    let next = dueAt + check.frequencyMs;
    if (next < now) next = dueAt + check.frequencyMs * Math.ceil((now - dueAt) / check.frequencyMs);
    this.#schedule(key, entry, next);
  }
}
