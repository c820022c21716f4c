import type { Clock, TimerHandle } from './clock.ts';

interface Entry {
  at: number;
  seq: number;
  key: number;
}

/** Heap order: earlier due time first; equal times in scheduling order. */
const before = (a: Entry, b: Entry) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * The engine's timer wheel: one logical timer per key (a monitor id), all held in one binary
 * min-heap and driven by a single clock timer armed for the earliest entry. Scheduling and
 * rescheduling cost O(log n); a cancelled or replaced entry is dropped lazily when it reaches the
 * top. (A hashed wheel would be O(1) but rounds due times to its tick; with 10,000 keys a heap is
 * a few microseconds per operation and keeps due times exact, which the lag metric relies on.)
 */
export class TimerQueue {
  readonly #clock: Clock;
  readonly #heap: Entry[] = [];
  /** key → seq of its live entry (an entry whose seq differs is stale). */
  readonly #live = new Map<number, { seq: number; fn: (dueAt: number) => void }>();
  #seq = 0;
  #armed: { at: number; handle: TimerHandle } | null = null;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Number of live timers. */
  get size(): number {
    return this.#live.size;
  }

  /** Entries in the heap, stale ones included; at most 2 × {@link size} + 64 (diagnostics, tests). */
  get heapSize(): number {
    return this.#heap.length;
  }

  /** Runs `fn(dueAt)` at epoch ms `at`, replacing any timer of `key`. */
  schedule(key: number, at: number, fn: (dueAt: number) => void): void {
    const seq = ++this.#seq;
    const live = this.#live.get(key);
    if (live) {
      // Rescheduled (a healthcheck's deadline on every ping): the record is reused, not reallocated.
      live.seq = seq;
      live.fn = fn;
    } else this.#live.set(key, { seq, fn });
    this.#push({ at, seq, key });
    // Replaced entries are dropped lazily at the top; keys rescheduled again and again before their
    // time would pile them up, so past twice the live count the heap is rebuilt (O(n log n) once per
    // n reschedules: O(log n) amortized).
    if (this.#heap.length > 2 * this.#live.size + 64) this.#compact();
    this.#arm();
  }

  /** Cancels the timer of `key`, if any. */
  cancel(key: number): void {
    this.#live.delete(key);
  }

  /** Due time of `key`'s timer, or undefined. O(n): for tests and diagnostics only. */
  dueAt(key: number): number | undefined {
    const live = this.#live.get(key);
    return live && this.#heap.find((e) => e.seq === live.seq)?.at;
  }

  /** Cancels everything. */
  clear(): void {
    this.#live.clear();
    this.#heap.length = 0;
    this.#armed?.handle.cancel();
    this.#armed = null;
  }

  #arm(): void {
    this.#dropStale();
    const top = this.#heap[0];
    if (!top) {
      this.#armed?.handle.cancel();
      this.#armed = null;
      return;
    }
    if (this.#armed && this.#armed.at <= top.at) return;
    this.#armed?.handle.cancel();
    this.#armed = { at: top.at, handle: this.#clock.setTimer(top.at - this.#clock.now(), () => this.#fire()) };
  }

  #fire(): void {
    this.#armed = null;
    const now = this.#clock.now();
    for (;;) {
      this.#dropStale();
      const top = this.#heap[0];
      if (!top || top.at > now) break;
      this.#pop();
      const live = this.#live.get(top.key)!;
      this.#live.delete(top.key);
      live.fn(top.at);
    }
    this.#arm();
  }

  #compact(): void {
    const h = this.#heap;
    let n = 0;
    for (const e of h) if (this.#live.get(e.key)?.seq === e.seq) h[n++] = e;
    h.length = n;
    // Floyd's bottom-up heap construction: O(n), where sorting was O(n log n) — with 10,000 healthchecks
    // pinged in turn this runs every ~10,000 pings, and a sort of 20,000 entries stalled the loop for ms.
    for (let i = (n >> 1) - 1; i >= 0; i--) this.#siftDown(i, h[i]!);
  }

  #dropStale(): void {
    for (let top = this.#heap[0]; top && this.#live.get(top.key)?.seq !== top.seq; top = this.#heap[0]) this.#pop();
  }

  #push(e: Entry): void {
    const h = this.#heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(e, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    this.#siftDown(0, last);
  }

  /** Puts `last` at index `start` or below, moving the smaller child up until `last` fits (sift-down). */
  #siftDown(start: number, last: Entry): void {
    const h = this.#heap;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && before(h[r]!, h[l]!) ? r : l;
      if (!before(h[c]!, last)) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
  }
}
