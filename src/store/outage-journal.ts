import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CheckResult } from '../domain/check.ts';
import { randomBase62 } from '../domain/ids.ts';

/** Largest journal file, bytes (64 MiB: about 4 hours of 300 monitors checked every 10 s). */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** One journal line: a batch of results that a failed flush could not store, with the id its replay claims. */
export interface JournalBatch {
  /** `jrn_…`, random: claimed (store.probes.claimBatch) in the transaction that stores the batch. */
  id: string;
  /** When it was written (epoch ms). */
  at: number;
  results: CheckResult[];
}

/**
 * The leader's local journal of check results written while the database is unreachable (issue 31
 * point 5): `<data_dir>/outage-journal.jsonl`, one JSON line per batch, appended and fsync'ed once per
 * failed flush (about once a second during an outage), at most `maxBytes` (past it a batch is refused
 * and stays in memory). A batch is stored later in one transaction that claims its id first, so a
 * replay after a crash between that commit and the file's rewrite stores nothing twice. A torn last
 * line (a crash mid-append) is skipped. Local disk only: the synchronous calls never wait on a network.
 * One data dir per instance (as with SQLite): the file has one writer.
 */
export function outageJournal(file: string, maxBytes = MAX_JOURNAL_BYTES) {
  let bytes = 0;
  let count = 0;
  try {
    bytes = statSync(file).size;
    count = bytes > 0 ? read().batches.length : 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }

  function read(): { batches: JournalBatch[]; torn: number } {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { batches: [], torn: 0 };
      throw e;
    }
    const batches: JournalBatch[] = [];
    let torn = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        batches.push(JSON.parse(line) as JournalBatch);
      } catch (e) {
        // A crash in the middle of an append leaves one unparsable line: its batch was never acknowledged.
        if (!(e instanceof SyntaxError)) throw e;
        torn++;
      }
    }
    return { batches, torn };
  }

  return {
    file,
    /** Batches and bytes on disk now. */
    stats: (): { batches: number; bytes: number } => ({ batches: count, bytes }),
    /**
     * Appends `results` as one batch and fsyncs it.
     * @returns false when the journal is full (nothing written: the caller keeps them in memory)
     * @throws the file system's error (disk full, permissions): the caller keeps them in memory
     */
    append(results: readonly CheckResult[]): boolean {
      const line = `${JSON.stringify({ id: `jrn_${randomBase62(20)}`, at: Date.now(), results: [...results] } satisfies JournalBatch)}\n`;
      const size = Buffer.byteLength(line);
      if (bytes + size > maxBytes) return false;
      mkdirSync(dirname(file), { recursive: true });
      const fd = openSync(file, 'a');
      try {
        appendFileSync(fd, line);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      bytes += size;
      count++;
      return true;
    },
    /** The batches on disk, oldest first (read from the file). */
    batches: (): JournalBatch[] => read().batches,
    /**
     * Forgets the first `n` batches (they are stored): the file is rewritten with the rest (written to a
     * temporary file, fsync'ed, renamed over), or removed when none is left.
     */
    drop(n: number): void {
      const rest = read().batches.slice(n);
      if (rest.length === 0) {
        rmSync(file, { force: true });
        bytes = 0;
        count = 0;
        return;
      }
      const text = rest.map((b) => `${JSON.stringify(b)}\n`).join('');
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, text);
      const fd = openSync(tmp, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
      bytes = Buffer.byteLength(text);
      count = rest.length;
    },
  };
}

/** The journal's interface. */
export type OutageJournal = ReturnType<typeof outageJournal>;
