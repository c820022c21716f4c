import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The file a serving Pharos keeps in its SQLite data dir: its process id (removed at a graceful stop), for messages. */
export const SERVER_PID_FILE = 'pharos.pid';
/** The lock a serving Pharos holds: a small SQLite file kept in an exclusive transaction while it runs. */
export const SERVER_LOCK_FILE = 'pharos.lock';

const open = (file: string, nativeBinding?: object) => new Database(file, { timeout: 0, ...(nativeBinding ? { nativeBinding } : {}) } as Database.Options);

/**
 * Marks `dataDir` as served by this process, for commands that must not run under a server
 * (`pharos restore`): holds `<dataDir>/pharos.lock` in an exclusive SQLite transaction (a POSIX
 * file lock: the kernel drops it when the process dies, however it dies, and it is seen across
 * containers sharing the volume) and writes its process id to `pharos.pid` for the message.
 * When another process (or another Pharos of this one, in tests) holds it already, nothing is marked:
 * the start is not refused for it.
 * @returns a function releasing the lock and removing the pid file
 */
export function markDataDirServed(dataDir: string, nativeBinding?: object): () => void {
  const lock = open(join(dataDir, SERVER_LOCK_FILE), nativeBinding);
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    lock.close();
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return () => undefined;
    throw e;
  }
  const pidFile = join(dataDir, SERVER_PID_FILE);
  writeFileSync(pidFile, `${process.pid}\n`);
  return () => {
    rmSync(pidFile, { force: true });
    lock.exec('ROLLBACK');
    lock.close();
  };
}

/**
 * Whether a Pharos serves `dataDir` now (it holds `pharos.lock`, see {@link markDataDirServed}):
 * null when not, else what `pharos.pid` says (the process id as text, `unknown` without one).
 * @throws Error from SQLite other than "database is locked" (e.g. the folder cannot be read)
 */
export function dataDirServer(dataDir: string, nativeBinding?: object): string | null {
  let probe: Database.Database | undefined;
  try {
    probe = open(join(dataDir, SERVER_LOCK_FILE), nativeBinding);
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('ROLLBACK');
    return null;
  } catch (e) {
    if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
    try {
      return readFileSync(join(dataDir, SERVER_PID_FILE), 'utf8').trim() || 'unknown';
    } catch (r) {
      if ((r as NodeJS.ErrnoException).code === 'ENOENT') return 'unknown';
      throw r;
    }
  } finally {
    probe?.close();
  }
}
