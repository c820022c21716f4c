import { closeSync, openSync, readSync } from 'node:fs';

/**
 * How often a SQLite WAL starts over, read from the WAL file's header: its "checkpoint sequence
 * number" (big-endian u32 at byte 12; SQLite file format §4.1, https://www.sqlite.org/fileformat2.html#walformat)
 * goes up by one each time a writer starts the WAL over from its first frame, which it does once a
 * checkpoint has copied the whole WAL into the database. While SQLite's own autocheckpoint runs
 * (every 1,000 pages, inside the COMMIT that passes them, on the thread that commits), each start
 * over stands for ~1,000 pages written and one checkpoint run on that thread. store/checkpointer.ts
 * starts its worker thread by these counts (issue 38).
 */

/** One rule: at least `restarts` starts over within the last `withinMs` milliseconds. */
export interface RestartRule {
  restarts: number;
  withinMs: number;
}

/** The WAL's checkpoint sequence number, or undefined when there is no WAL header yet (no file, empty, not a WAL). */
export function walSequence(walFile: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(walFile, 'r');
  } catch {
    return undefined;
  }
  try {
    const header = Buffer.alloc(16);
    if (readSync(fd, header, 0, 16, 0) < 16) return undefined;
    const magic = header.readUInt32BE(0);
    if (magic !== 0x377f0682 && magic !== 0x377f0683) return undefined;
    return header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

/** Counts starts over of one WAL file, look by look, and says when any rule is met. */
export interface RestartCounter {
  /** Reads the header at `now` (ms, monotonic) and counts the starts over since the last look; true once a rule is met. */
  look(now: number): boolean;
  /** Starts over counted within `withinMs` of `now`. */
  within(now: number, withinMs: number): number;
}

/**
 * A counter of `walFile`'s starts over against `rules` (any one met is enough). The first header
 * read is the baseline. A sequence number that went down (the WAL was deleted and made again)
 * counts as one start over.
 */
export function restartCounter(walFile: string, rules: readonly RestartRule[]): RestartCounter {
  const longest = Math.max(0, ...rules.map((r) => r.withinMs));
  const seen: Array<{ at: number; n: number }> = [];
  let last: number | undefined;
  const within = (now: number, withinMs: number) => seen.reduce((sum, s) => (now - s.at <= withinMs ? sum + s.n : sum), 0);
  return {
    look(now) {
      const seq = walSequence(walFile);
      if (seq === undefined) return false;
      if (last !== undefined && seq !== last) seen.push({ at: now, n: seq > last ? seq - last : 1 });
      last = seq;
      while (seen.length > 0 && now - seen[0]!.at > longest) seen.shift();
      return rules.some((r) => within(now, r.withinMs) >= r.restarts);
    },
    within,
  };
}
