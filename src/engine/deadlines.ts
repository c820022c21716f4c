import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Core } from '../core/index.ts';
import { deadlineAt, isWatched, type Healthcheck } from '../domain/healthcheck.ts';
import { TimerQueue } from '../lib/timer-queue.ts';

/** Retry delay after a deadline check failed to commit, ms. */
const RETRY_MS = 5_000;

/**
 * One timer per watched healthcheck, at its deadline (due + grace) + 1 ms: late means strictly
 * after the deadline. Rebuilt from the store by `start()` (a deadline that passed while Pharos was
 * stopped fires at once: there is no start-up grace), kept current by `healthcheck.changed` and
 * `healthcheck.deleted` events; never polls. When a timer fires the core decides
 * (`checkDeadline`), and its `healthcheck.changed` announcement sets the next timer.
 */
export class HealthcheckDeadlines {
  readonly #timers: TimerQueue;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: { core: Core; clock: Clock; logger: Logger }) {
    this.#timers = new TimerQueue(deps.clock);
  }

  /** Sets a timer for every watched healthcheck of the store and follows healthcheck events. */
  start(): void {
    const { core } = this.deps;
    this.#unsubscribe.push(
      core.bus.on('healthcheck.changed', ({ healthcheck }) => this.#watch(healthcheck)),
      core.bus.on('healthcheck.deleted', ({ healthcheckId }) => this.#timers.cancel(healthcheckId)),
    );
    for (const hc of core.healthchecks.list()) this.#watch(hc);
  }

  /** Healthchecks with a deadline timer. */
  get watchedCount(): number {
    return this.#timers.size;
  }

  /** When the timer of a healthcheck fires (epoch ms), or undefined when none is set. */
  timerAt(healthcheckId: number): number | undefined {
    return this.#timers.dueAt(healthcheckId);
  }

  /** Cancels every timer and stops following events. */
  stop(): void {
    for (const u of this.#unsubscribe) u();
    this.#timers.clear();
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
      try {
        this.deps.core.healthchecks.checkDeadline(id);
      } catch (e) {
        // A failed write (disk full, locked) must not drop the watch: try again shortly.
        this.deps.logger.error('healthcheck deadline failed', { healthcheck: publicUuid, error: (e as Error).message });
        this.#arm({ id, publicUuid }, this.deps.clock.now() + RETRY_MS);
      }
    });
  }
}
