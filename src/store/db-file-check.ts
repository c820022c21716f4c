import Database from 'better-sqlite3';

/** What {@link checkDbFileAgainst} found in a SQLite file. */
export interface DbFileCheck {
  /** `PRAGMA integrity_check` said ok, it holds Pharos's tables, and its schema is not newer than this Pharos. */
  ok: boolean;
  /** Its `PRAGMA user_version` (the Pharos schema version), 0 when unreadable. */
  version: number;
  /** Why it is not ok, one line; null when ok. */
  problem: string | null;
}

/**
 * Checks a SQLite file before it is listed as a backup or restored: opens it read-only, runs
 * `PRAGMA integrity_check` (the whole file: seconds per GB, synchronous), reads `user_version`, and
 * looks for Pharos's tables. Never throws for a bad file: the problem is in the answer.
 * @param opts.ownCopy the file is a copy Pharos just wrote: opened read-write and switched to
 *   `journal_mode = DELETE` first (one file, no `-wal`/`-shm` beside it)
 * @param latest the newest schema version this Pharos knows
 * @param opts.nativeBinding the loaded better-sqlite3 addon inside the single executable (lib/sea.ts)
 */
export function checkDbFileAgainst(file: string, latest: number, opts: { nativeBinding?: object | undefined; ownCopy?: boolean | undefined } = {}): DbFileCheck {
  const { nativeBinding } = opts;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: !opts.ownCopy, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) } as Database.Options);
    // A copy of a WAL database is in WAL mode too: made one self-contained file (no -wal/-shm beside it).
    if (opts.ownCopy) db.pragma('journal_mode = DELETE');
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const verdict = rows.map((r) => r.integrity_check).join('; ');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (verdict !== 'ok') return { ok: false, version, problem: `integrity_check: ${verdict.slice(0, 200)}` };
    const monitors = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'monitors'").get();
    if (!monitors || version < 1) return { ok: false, version, problem: 'not a Pharos database (no monitors table or schema version 0)' };
    if (version > latest) return { ok: false, version, problem: `its schema version ${version} is newer than this Pharos knows (${latest}): restore it with the newer Pharos` };
    return { ok: true, version, problem: null };
  } catch (e) {
    return { ok: false, version: 0, problem: `cannot read it as a SQLite database: ${(e as Error).message}` };
  } finally {
    db?.close();
  }
}

