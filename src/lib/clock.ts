/**
 * Time as a parameter (house rule 4). Everything that reads the time or waits takes a `Clock`,
 * so tests drive deadlines, confirmation and scheduling with a manual clock instead of sleeping.
 */

/** An opaque handle returned by {@link Clock.setTimer}. */
export interface TimerHandle {
  /** Cancels the timer; calling it after the timer fired is a no-op. */
  cancel(): void;
}

/** Source of the current time and of one-shot timers. All values are UTC epoch milliseconds. */
export interface Clock {
  /** Current time, UTC epoch ms. */
  now(): number;
  /** Calls `fn` once, `delayMs` milliseconds from now (a negative delay means "as soon as possible"). */
  setTimer(delayMs: number, fn: () => void): TimerHandle;
}

/** The real clock: `Date.now()` and `setTimeout`. Timers are unref'd so they never keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, fn) {
    const t = setTimeout(fn, Math.max(0, delayMs));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};
