import type { Clock, TimerHandle } from '../../src/lib/clock.ts';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when the test says so. `advance(ms, settle)` fires due timers in time
 * order, setting `now` to each timer's time, and awaits `settle()` after each so async work a timer
 * started (a probe over real sockets) finishes before the next timer fires.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const t: Timer = { at: this.#now + Math.max(0, delayMs), seq: ++this.#seq, fn, cancelled: false };
    this.#timers.push(t);
    return { cancel: () => void (t.cancelled = true) };
  }

  /** Timers not yet fired or cancelled. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer due on the way, and awaiting `settle` after each. */
  async advance(ms: number, settle: () => Promise<void> = async () => {}): Promise<void> {
    const target = this.#now + ms;
    // A long advance (months of hourly timers, each a few database round trips on PostgreSQL) can keep
    // the event loop from turning for seconds: let it turn once per real second, so sockets and the
    // server's keep-alive timers are serviced as they would be, instead of all at once afterwards
    // (a kept-alive socket closed by the server just as the next request reuses it: ECONNRESET).
    let turned = performance.now();
    for (;;) {
      if (performance.now() - turned > 1000) {
        await new Promise((r) => setImmediate(r));
        turned = performance.now();
      }
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers[0];
      if (!next || next.at > target) break;
      this.#timers.shift();
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}
