import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../lib/errors.ts';
import { MIGRATIONS } from './migrations/index.ts';
import type { Store } from './index.ts';

/** A finished, verified backup in a backup folder. */
export interface BackupFile {
  /** File name, `pharos-YYYYMMDD-HHMMSSZ.db` (UTC time the backup started). */
  name: string;
  /** Full path. */
  file: string;
  /** Size in bytes. */
  bytes: number;
  /** When it started, UTC epoch ms (from the name). */
  at: number;
}

/** What {@link checkDbFile} found in a SQLite file. */
export interface DbFileCheck {
  /** `PRAGMA integrity_check` said ok, it holds Pharos's tables, and its schema is not newer than this Pharos. */
  ok: boolean;
  /** Its `PRAGMA user_version` (the Pharos schema version), 0 when unreadable. */
  version: number;
  /** Why it is not ok, one line; null when ok. */
  problem: string | null;
}

const NAME = /^pharos-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})Z\.db$/;

/** The file name of a backup started at `at` (UTC epoch ms): `pharos-20261127-111500Z.db`, sorting by time. */
export function backupName(at: number): string {
  const d = new Date(at).toISOString(); // 2026-11-27T11:15:00.000Z
  return `pharos-${d.slice(0, 10).replaceAll('-', '')}-${d.slice(11, 19).replaceAll(':', '')}Z.db`;
}

/**
 * Finished backups in `dir`, newest first. Only names {@link backupName} makes count: a copy being
 * written (`.pharos-….db.partial`, renamed only once verified) is never listed. A missing folder has none.
 */
export function listBackups(dir: string): BackupFile[] {
  if (!existsSync(dir)) return [];
  const out: BackupFile[] = [];
  for (const name of readdirSync(dir)) {
    const m = NAME.exec(name);
    if (!m) continue;
    const at = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    out.push({ name, file: join(dir, name), bytes: statSync(join(dir, name)).size, at });
  }
  return out.sort((a, b) => b.at - a.at);
}

/**
 * Checks a SQLite file before it is listed as a backup or restored: opens it read-only, runs
 * `PRAGMA integrity_check` (the whole file: seconds per GB, synchronous), reads `user_version`, and
 * looks for Pharos's tables. Never throws for a bad file: the problem is in the answer.
 * @param opts.ownCopy the file is a copy Pharos just wrote: opened read-write and switched to
 *   `journal_mode = DELETE` first (one file, no `-wal`/`-shm` beside it)
 * @param nativeBinding the loaded better-sqlite3 addon inside the single executable (lib/sea.ts)
 */
export function checkDbFile(file: string, nativeBinding?: object, opts: { ownCopy?: boolean } = {}): DbFileCheck {
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
    const latest = MIGRATIONS.at(-1)!.version;
    if (version > latest) return { ok: false, version, problem: `its schema version ${version} is newer than this Pharos knows (${latest}): restore it with the newer Pharos` };
    return { ok: true, version, problem: null };
  } catch (e) {
    return { ok: false, version: 0, problem: `cannot read it as a SQLite database: ${(e as Error).message}` };
  } finally {
    db?.close();
  }
}

/**
 * Test hook (only when the environment names a file in PHAROS_TEST_HOLD_BACKUP): once the copy is
 * written but before it is verified and renamed, the file is created and the backup never goes on,
 * so a test can kill the process "mid-backup" deterministically.
 */
function holdForTests(): Promise<void> | null {
  const marker = process.env.PHAROS_TEST_HOLD_BACKUP;
  if (!marker) return null;
  writeFileSync(marker, String(process.pid));
  return new Promise<void>(() => undefined);
}

/**
 * Writes one backup of the SQLite store into `dir` (created when missing): better-sqlite3's online
 * backup (`db.backup()`: copies pages in steps between event-loop turns, the server keeps writing)
 * to `.pharos-….db.partial`, then {@link checkDbFile} on that copy, and only when it says ok the
 * rename to its listed name (a rename within one folder is atomic: a crash leaves a partial file,
 * never a listed one). A copy that fails the check is deleted.
 * @param at the backup's time (UTC epoch ms, names the file)
 * @throws AppError 500 `backup.failed` with the reason (cannot write, integrity check failed);
 *   AppError 400 `store.unsupported` on PostgreSQL
 */
export async function writeBackup(store: Store, dir: string, at: number, nativeBinding?: object): Promise<BackupFile> {
  const name = backupName(at);
  const file = join(dir, name);
  const partial = join(dir, `.${name}.partial`);
  try {
    mkdirSync(dir, { recursive: true });
    rmSync(partial, { force: true });
    await store.backupTo(partial);
    await holdForTests();
    const check = checkDbFile(partial, nativeBinding, { ownCopy: true });
    if (!check.ok) throw new Error(check.problem ?? 'check failed');
    renameSync(partial, file);
  } catch (e) {
    let leftover = '';
    try {
      for (const f of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(f, { force: true });
    } catch (r) {
      // A folder that cannot be written (the usual reason to be here) may refuse the clean-up too.
      if ((r as NodeJS.ErrnoException).code !== 'ENOTDIR') leftover = ` (and its partial copy could not be removed: ${(r as Error).message})`;
    }
    if (e instanceof AppError) throw e;
    throw new AppError(500, 'backup.failed', `backup to ${file} failed: ${(e as Error).message}${leftover}`);
  }
  return { name, file, bytes: statSync(file).size, at };
}

/**
 * Deletes the oldest listed backups beyond `keep`, and partial copies left by a process that died
 * mid-backup (`.pharos-*.partial`; call it only while no backup of this process is being written).
 * @returns the names deleted
 */
export function pruneBackups(dir: string, keep: number): string[] {
  const gone = listBackups(dir).slice(keep).map((b) => b.name);
  if (existsSync(dir)) for (const name of readdirSync(dir)) if (/^\.pharos-.*\.partial(-wal|-shm|-journal)?$/.test(name)) gone.push(name);
  for (const name of gone) rmSync(join(dir, name), { force: true });
  return gone;
}
