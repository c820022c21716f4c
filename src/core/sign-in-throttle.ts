import type { Clock } from '../lib/clock.ts';
import type { AppError } from '../lib/errors.ts';

/** One counter a try is charged to: its key and the most tries it holds within the window. */
export interface Counter {
  key: string;
  limit: number;
}

/** A try holding one point on each of its counters until it is known to be right or wrong. */
export interface Reservation {
  /**
   * The secret was right: the try's points are given back. Earlier failures are not forgotten (a
   * right guess among concurrent wrong ones must not open a new budget for them). A try that is
   * never marked right keeps its points: it counted as a failure.
   */
  succeeded(): void;
}

/** A set of fixed-window counters that charge a try before its secret is checked. */
export interface AttemptThrottle {
  /**
   * Charges one point to every counter, or to none when one of them is full.
   * @throws the `tooMany` error (429) of the throttle when a counter is full: the secret must then not be checked
   */
  reserve(counters: readonly Counter[]): Reservation;
  /** Runs `check` (a password or code comparison) under a reservation: `true` gives the points back. */
  check(counters: readonly Counter[], check: () => Promise<boolean> | boolean): Promise<boolean>;
}

interface Window {
  count: number;
  /** Epoch ms when the window ends and the counter starts again from nothing. */
  endsAt: number;
}

/** Counters kept at most (oldest dropped past it), so a flood of made-up keys cannot grow memory without bound. */
const MAX_KEYS = 100_000;

/**
 * The one mechanism behind every secret checked for a visitor (console passwords, TOTP and recovery
 * codes, the current password of settings forms, status page passwords, single sign-on starts):
 * fixed windows of `windowMs` from a counter's first point, on the injected clock.
 *
 * A try is counted BEFORE its secret is hashed and given back only when it was right. Counting only
 * after the check (the way rate-limiter-flexible's get/consume was used here before) let concurrent
 * requests all pass the check while none had been counted yet: 100 concurrent guesses were all
 * hashed against a limit of 10 (issue 30). Reserving is synchronous, so on one event loop no two
 * requests can both take the last point.
 */
export function attemptThrottle(opts: { clock: Clock; windowMs: number; tooMany: (retryAfterSeconds: number) => AppError }): AttemptThrottle {
  const { clock, windowMs, tooMany } = opts;
  const windows = new Map<string, Window>();
  let pruneAt = 0;
  const prune = (now: number) => {
    // The sweep of ended windows runs once a window at most: over the cap only the oldest go (below),
    // so a flood of made-up keys costs O(1) per try, not a scan of every counter.
    if (now >= pruneAt) {
      for (const [k, w] of windows) if (w.endsAt <= now) windows.delete(k);
      pruneAt = now + windowMs;
    }
    // Maps iterate in insertion order: the oldest counters go first.
    for (const k of windows.keys()) {
      if (windows.size <= MAX_KEYS) break;
      windows.delete(k);
    }
  };
  const live = (key: string, now: number): Window | undefined => {
    const w = windows.get(key);
    if (w && w.endsAt <= now) {
      windows.delete(key);
      return undefined;
    }
    return w;
  };

  const reserve = (counters: readonly Counter[]): Reservation => {
    const now = clock.now();
    prune(now);
    let fullUntil = 0;
    for (const c of counters) {
      const w = live(c.key, now);
      if (w && w.count >= c.limit) fullUntil = Math.max(fullUntil, w.endsAt);
    }
    if (fullUntil > 0) throw tooMany(Math.max(1, Math.ceil((fullUntil - now) / 1000)));
    const held: Window[] = counters.map((c) => {
      let w = live(c.key, now);
      if (!w) windows.set(c.key, (w = { count: 0, endsAt: now + windowMs }));
      w.count++;
      return w;
    });
    let done = false;
    return {
      succeeded() {
        if (done) return;
        done = true;
        counters.forEach((c, i) => {
          const w = held[i]!;
          // Only the window this try was charged to (a new one may have started since).
          if (windows.get(c.key) === w && --w.count <= 0) windows.delete(c.key);
        });
      },
    };
  };

  return {
    reserve,
    async check(counters, check) {
      const r = reserve(counters);
      const ok = await check();
      if (ok) r.succeeded();
      return ok;
    },
  };
}

/** Window of the console's counters, ms. */
export const CONSOLE_WINDOW_MS = 15 * 60_000;
/** Wrong tries per client address (all accounts together) within the console window. */
export const CONSOLE_ADDRESS_ATTEMPTS = 30;
/** The cap on one account's wrong tries from addresses it never signed in from: this × `console.login_attempts`. */
export const UNKNOWN_ADDRESSES_FACTOR = 5;

/**
 * The counters a console try (a password, a TOTP or recovery code) for `email` from `address` is
 * charged to (docs/operations.md "Console"): the address, all accounts together (30); this account
 * from this address (`console.login_attempts`, 10); and this account from every address it is not
 * `trusted` at (5 × `login_attempts`, 50). `trusted` is an address the person completed a sign-in
 * from within 30 days, or a try carrying a valid TOTP code: strangers' failures elsewhere fill the
 * account's counter but never lock the person out there, while a distributed attack on one account
 * still gets at most 50 tries per 15 minutes from new addresses.
 */
export function consoleCounters(loginAttempts: number, email: string, address: string, trusted: boolean): Counter[] {
  const counters: Counter[] = [
    { key: JSON.stringify(['address', address]), limit: CONSOLE_ADDRESS_ATTEMPTS },
    { key: JSON.stringify(['account+address', email, address]), limit: loginAttempts },
  ];
  if (!trusted) counters.push({ key: JSON.stringify(['account', email]), limit: UNKNOWN_ADDRESSES_FACTOR * loginAttempts });
  return counters;
}
