import type { Clock, TimerHandle } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Core } from '../core/index.ts';
import { deadlineAt, isWatched, type Healthcheck } from '../domain/healthcheck.ts';
import { TimerQueue } from '../lib/timer-queue.ts';

/** Retry delay after a deadline check (or loading the healthchecks) failed, ms. */
const RETRY_MS = 5_000;

/**
 * One timer per watched healthcheck, at its deadline (due + grace) + 1 ms: late means strictly
 * after the deadline. Rebuilt from the store by `start()` (a deadline that passed while Pharos was
 * stopped fires at once: there is no start-up grace), kept current by `healthcheck.changed` and
 * `healthcheck.deleted` events; never polls. When a timer fires the core decides
 * (`checkDeadline`, asynchronous: the event loop never waits on the database), and its
 * `healthcheck.changed` announcement sets the next timer.
 *
 * One check runs at a time: timers that fire meanwhile queue their healthcheck, and the run in
 * flight takes them in turn; `stop()` resolves once that run has ended.
 */
export class HealthcheckDeadlines {
  readonly #timers: TimerQueue;
  readonly #unsubscribe: Array<() => void> = [];
  /** Healthchecks whose timer fired, waiting for their check, oldest first: id → public uuid. */
  readonly #due = new Map<number, string>();
  /** The run checking {@link #due}, while one is in flight. */
  #running: Promise<void> | null = null;
  /** Loading the healthchecks at start, while in flight. */
  #loading: Promise<void> | null = null;
  /** Healthchecks an event told about while `start()` loads the list (newer than what it read); null otherwise. */
  #heard: Set<number> | null = null;
  #retryLoad: TimerHandle | null = null;
  /** Between `start()` and `stop()`. */
  #active = false;

  constructor(private readonly deps: { core: Core; clock: Clock; logger: Logger }) {
    this.#timers = new TimerQueue(deps.clock);
  }

  /**
   * Follows healthcheck events and sets a timer for every watched healthcheck of the store. The list
   * is read asynchronously: the returned promise resolves once the timers are set (a failed read is
   * logged and tried again after {@link RETRY_MS}; it never rejects).
   */
  start(): Promise<void> {
    const { core } = this.deps;
    this.#active = true;
    this.#unsubscribe.push(
      core.bus.on('healthcheck.changed', ({ healthcheck }) => {
        this.#heard?.add(healthcheck.id);
        this.#watch(healthcheck);
      }),
      core.bus.on('healthcheck.deleted', ({ healthcheckId }) => {
        this.#heard?.add(healthcheckId);
        this.#timers.cancel(healthcheckId);
        this.#due.delete(healthcheckId);
      }),
    );
    return this.#load();
  }

  /**
   * Resolves once the start-up load and the deadline checks in flight have ended (tests driving a
   * manual clock, the wiring awaiting the first timers). Never rejects.
   */
  async settled(): Promise<void> {
    while (this.#loading || this.#running) await Promise.all([this.#loading, this.#running]);
  }

  /** Healthchecks with a deadline timer. */
  get watchedCount(): number {
    return this.#timers.size;
  }

  /** When the timer of a healthcheck fires (epoch ms), or undefined when none is set. */
  timerAt(healthcheckId: number): number | undefined {
    return this.#timers.dueAt(healthcheckId);
  }

  /**
   * Cancels every timer and stops following events at once; resolves when the check in flight (and
   * the start-up load) has ended. Never rejects.
   */
  stop(): Promise<void> {
    this.#active = false;
    for (const u of this.#unsubscribe) u();
    this.#unsubscribe.length = 0;
    this.#timers.clear();
    this.#due.clear();
    this.#retryLoad?.cancel();
    this.#retryLoad = null;
    return Promise.all([this.#running, this.#loading]).then(() => {});
  }

  #load(): Promise<void> {
    const heard = (this.#heard = new Set());
    const loading = this.deps.core.healthchecks.list().then(
      (list) => {
        if (!this.#active || this.#heard !== heard) return;
        // An event heard while the list was read is newer than the list's row.
        for (const hc of list) if (!heard.has(hc.id)) this.#watch(hc);
      },
      (e: unknown) => {
        if (!this.#active || this.#heard !== heard) return;
        this.deps.logger.error('loading the healthchecks\' deadlines failed; trying again shortly', { error: (e as Error).message });
        this.#retryLoad = this.deps.clock.setTimer(RETRY_MS, () => {
          this.#retryLoad = null;
          if (this.#active) void this.#load();
        });
      },
    );
    const done = loading.finally(() => {
      if (this.#heard === heard) this.#heard = null;
      if (this.#loading === done) this.#loading = null;
    });
    this.#loading = done;
    return done;
  }

  #watch(hc: Healthcheck): void {
    const deadline = isWatched(hc) ? deadlineAt(hc) : null;
    if (deadline === null) return this.#timers.cancel(hc.id);
    this.#arm(hc, deadline + 1);
  }

  #arm(hc: Pick<Healthcheck, 'id' | 'publicUuid'>, at: number): void {
    // The timer keeps the id and public uuid only, not the whole healthcheck: it is re-armed on every
    // ping, and each retained copy would outlive the young generation (promoted garbage).
    const { id, publicUuid } = hc;
    this.#timers.schedule(id, at, () => {
      this.#due.set(id, publicUuid);
      this.#kick();
    });
  }

  /** Starts a run over the due healthchecks unless one is in flight (that one takes them). */
  #kick(): void {
    if (this.#running || !this.#active) return;
    this.#running = this.#checkDue().finally(() => {
      this.#running = null;
      // A timer that fired between the run's last look and its end.
      if (this.#due.size > 0) this.#kick();
    });
  }

  /** Checks the due healthcheck deadlines one at a time until none is left (or stopped). Never rejects. */
  async #checkDue(): Promise<void> {
    while (this.#active && this.#due.size > 0) {
      const [id, publicUuid] = this.#due.entries().next().value!;
      this.#due.delete(id);
      try {
        await this.deps.core.healthchecks.checkDeadline(id);
      } catch (e) {
        // A failed write (disk full, locked, database unreachable) must not drop the watch: try again shortly.
        this.deps.logger.error('healthcheck deadline failed', { healthcheck: publicUuid, error: (e as Error).message });
        if (this.#active) this.#arm({ id, publicUuid }, this.deps.clock.now() + RETRY_MS);
      }
    }
  }
}
