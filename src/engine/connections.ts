import { readFileSync, readdirSync } from 'node:fs';

export { DESCRIPTORS_EXHAUSTED_REASON, isDescriptorExhaustion, isDescriptorExhaustionReason } from '../protocols/descriptors.ts';

/**
 * Connection policy of the probes (issue 21): a check opens a fresh connection and closes it after
 * (no keep-alive socket is kept between checks — a check every 10–300 s gains nothing from one, and
 * 10,000 distinct origins would hold 10,000 sockets), and the number of checks in flight is bounded
 * by the file descriptors this process may open (RLIMIT_NOFILE), so Pharos queues checks instead of
 * failing them with EMFILE. Running out of descriptors is Pharos's fault, never the target's: probes
 * report it with {@link DESCRIPTORS_EXHAUSTED_REASON} and the wheel retries such checks.
 */

/**
 * The soft `Max open files` limit of this process from /proc/self/limits (Node has no getrlimit;
 * Node raises the soft limit to the hard one at start-up, so this is the effective limit).
 * Undefined when unreadable (not Linux) or unlimited.
 */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (!m || m[1] === 'unlimited') return undefined;
  const n = Number(m[1]);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Descriptors open in this process now (entries of /proc/self/fd), or undefined when unreadable. */
export function openDescriptorCount(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

/**
 * How many checks may be in flight for the descriptors left: a quarter of the limit (at least 32)
 * stays free for the database, the listening sockets, the API, status-page visitors and alert
 * deliveries; each check holds at most one socket at a time. At least 4. Infinity when the limit
 * is unknown or unlimited.
 * @param limit the RLIMIT_NOFILE soft limit (see {@link openFileLimit})
 * @param open descriptors already open
 */
export function checkSlotsFor(limit: number | undefined, open: number | undefined): number {
  if (limit === undefined) return Infinity;
  const reserve = Math.max(32, Math.ceil(limit / 4));
  return Math.max(4, limit - (open ?? 0) - reserve);
}

/**
 * The bound on checks in flight from file descriptors: starts at {@link checkSlotsFor} of this
 * process and shrinks (multiplicatively) each time a check still meets EMFILE/ENFILE (descriptors
 * taken by something else), growing back by one every 64 clean checks.
 */
export class DescriptorBudget {
  readonly initial: number;
  #capacity: number;
  #clean = 0;
  /** Times a check met EMFILE/ENFILE. */
  exhaustedCount = 0;

  /** @param initial the starting bound (default: from this process's limit and open descriptors) */
  constructor(initial: number = checkSlotsFor(openFileLimit(), openDescriptorCount())) {
    this.initial = initial;
    this.#capacity = initial;
  }

  /** Checks that may be in flight now. */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * A check met EMFILE/ENFILE with `inFlight` checks running: the bound drops below that.
   * @returns true the first time (log it once)
   */
  exhausted(inFlight: number): boolean {
    this.exhaustedCount++;
    this.#clean = 0;
    this.#capacity = Math.max(1, Math.min(this.#capacity, Math.floor(inFlight * 0.75)));
    return this.exhaustedCount === 1;
  }

  /** A check finished without descriptor trouble. */
  clean(): void {
    if (this.#capacity >= this.initial) return;
    if (++this.#clean >= 64) {
      this.#clean = 0;
      this.#capacity++;
    }
  }
}
