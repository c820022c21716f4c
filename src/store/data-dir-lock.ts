import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file a serving Pharos keeps in its SQLite data dir: its process id (removed at a graceful stop). */
export const SERVER_PID_FILE = 'pharos.pid';

/**
 * Marks `dataDir` as served by this process (`<dataDir>/pharos.pid`), for commands that must not run
 * under a server (`pharos restore`). A file left by a killed process is harmless: {@link dataDirServer}
 * checks that its process still lives.
 * @returns a function removing the file (only when it still names this process)
 */
export function markDataDirServed(dataDir: string): () => void {
  const file = join(dataDir, SERVER_PID_FILE);
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    if (dataDirServer(dataDir) === process.pid) rmSync(file, { force: true });
  };
}

/**
 * The process id of a live Pharos serving `dataDir`, or null (no pid file, unreadable, or its process
 * is gone: `kill(pid, 0)` answers ESRCH; EPERM means it lives under another user).
 */
export function dataDirServer(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, SERVER_PID_FILE), 'utf8').trim());
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
