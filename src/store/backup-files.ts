import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '../lib/errors.ts';
import { addonFileOf, bundledFile, isSea } from '../lib/sea.ts';
import { checkDbFileAgainst, type DbFileCheck } from './db-file-check.ts';
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

export type { DbFileCheck } from './db-file-check.ts';

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
 * Checks a SQLite file before it is listed as a backup or restored ({@link checkDbFileAgainst}
 * against the latest schema version of this Pharos). Synchronous: on the event loop only in CLI
 * commands; the server checks its copies on a worker thread ({@link checkCopyOffThread}).
 * @param opts.ownCopy the file is a copy Pharos just wrote: switched to `journal_mode = DELETE` first
 */
export function checkDbFile(file: string, nativeBinding?: object, opts: { ownCopy?: boolean } = {}): DbFileCheck {
  return checkDbFileAgainst(file, MIGRATIONS.at(-1)!.version, { nativeBinding, ownCopy: opts.ownCopy });
}

/**
 * {@link checkDbFile} of a copy Pharos just wrote (`ownCopy`) on a worker thread
 * (store/verify-worker.ts; inside the single executable its bundle, the SEA asset verify-worker.cjs,
 * loading the same addon file), so `PRAGMA integrity_check` (about a second per GB) does not hold
 * the event loop. Runs inline only when the addon's file is unknown or the asset is missing.
 */
export function checkCopyOffThread(file: string, nativeBinding?: object): Promise<DbFileCheck> {
  const latest = MIGRATIONS.at(-1)!.version;
  const addonFile = nativeBinding ? addonFileOf(nativeBinding) : undefined;
  const inline = () => Promise.resolve(checkDbFileAgainst(file, latest, { nativeBinding, ownCopy: true }));
  if (nativeBinding && !addonFile) return inline();
  const options = { workerData: { file, latest, addonFile }, name: 'pharos-backup-check' };
  let code: string | null = null;
  if (isSea()) {
    try {
      code = bundledFile('verify-worker.cjs', '').toString('utf8');
    } catch (e) {
      if (!/asset/i.test((e as Error).message)) throw e;
      return inline();
    }
  }
  return new Promise<DbFileCheck>((resolve, reject) => {
    const worker = code !== null ? new Worker(code, { ...options, eval: true }) : new Worker(new URL('./verify-worker.ts', import.meta.url), { ...options, execArgv: [] });
    worker.once('message', (m: DbFileCheck) => resolve(m));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the backup check thread ended (code ${code}) without an answer`)));
  });
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
    const check = await checkCopyOffThread(partial, nativeBinding);
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
