import { join } from 'node:path';
import type { Config } from './config/schema.ts';
import type { Core } from './core/index.ts';
import type { BackupRun, BackupStatus } from './domain/backup.ts';
import { noticeKey } from './domain/alert.ts';
import type { Clock, TimerHandle } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import { raiseOperatorNotice, resolveOperatorNotice } from './core/operator-notice.ts';
import { listBackups, pruneBackups, writeBackup } from './store/backup-files.ts';
import type { Store } from './store/index.ts';

/** The running schedule. */
export interface BackupSchedule {
  status(): BackupStatus;
  /** Runs one backup now (one at a time: while one runs, the same run is returned). */
  runNow(): Promise<BackupRun>;
  /** Stops the timer and waits for a backup in flight. */
  close(): Promise<void>;
}

/**
 * `backup.every` in ms (`30m`, `6h`, `1d`), or null for `off`.
 * @throws Error for a value the config schema would have refused
 */
export function backupIntervalMs(every: string): number | null {
  if (every === 'off') return null;
  const m = /^(\d+)([mhd])$/.exec(every);
  if (!m) throw new Error(`backup.every: ${every}`);
  return Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
}

/**
 * Scheduled online backups of the SQLite store while serving (issue 37 point 3; writing and checking
 * one: store/backup-files.ts). The first runs `every` after the newest listed backup (at once when that
 * is overdue; `every` after start when there is none), then every `every` after the previous one ended. Each result is one
 * log line; a failure also raises an operator notice (core/operator-notice.ts) to the flood guard's channels (every channel
 * when it names none), keyed `backup:failed`, and the next backup that works one resolving it. Nothing is scheduled on PostgreSQL (pg_dump) or with `every: off`.
 */
export function startBackupSchedule(deps: { store: Store; core: Pick<Core, 'bus'>; clock: Clock; logger: Logger; config: Readonly<Config>; nativeBinding?: object | undefined }): BackupSchedule {
  const { store, clock, logger, config } = deps;
  const dir = config.backup.dir ?? join(config.data_dir, 'backups');
  const sqlite = config.storage.driver === 'sqlite';
  const everyMs = sqlite ? backupIntervalMs(config.backup.every) : null;
  const runs: BackupRun[] = [];
  let timer: TimerHandle | null = null;
  let inFlight: Promise<BackupRun> | null = null;
  let closed = false;

  // A failure's notice is resolved by the next backup that works (PagerDuty, Opsgenie: same key).
  let failing = false;
  const notify = (error: string | null, now: number) =>
    error !== null
      ? raiseOperatorNotice(deps, { key: noticeKey.backup(), title: 'Pharos backup failed', text: error }, now)
      : resolveOperatorNotice(deps, { key: noticeKey.backup(), title: 'Pharos backups work again', text: `A backup was written and verified after earlier failures (folder ${dir}).` }, now);

  const once = async (): Promise<BackupRun> => {
    const at = clock.now();
    const started = performance.now();
    try {
      // A partial copy left by a process killed mid-backup is removed first (never listed anyway).
      pruneBackups(dir, config.backup.keep);
      const b = await writeBackup(store, dir, at, deps.nativeBinding);
      const removed = pruneBackups(dir, config.backup.keep);
      const run: BackupRun = { at, ok: true, name: b.name, bytes: b.bytes, ms: Math.round(performance.now() - started), error: null };
      logger.info(`backup ok: ${b.file} (${(b.bytes / 1_048_576).toFixed(1)} MB, integrity_check ok, ${run.ms} ms${removed.length ? `; removed ${removed.join(', ')}` : ''})`, { backup: b.file, bytes: b.bytes, ms: run.ms, removed });
      if (failing) {
        failing = false;
        await notify(null, at).catch((n: unknown) => logger.error(`backups work again but the notice could not be queued: ${(n as Error).message}`));
      }
      return run;
    } catch (e) {
      const error = (e as Error).message;
      const run: BackupRun = { at, ok: false, name: null, bytes: null, ms: Math.round(performance.now() - started), error };
      logger.error(`backup failed: ${error}`, { dir });
      failing = true;
      await notify(error, at).catch((n: unknown) => logger.error(`backup failed and its notice could not be queued: ${(n as Error).message}`));
      return run;
    }
  };

  const runNow = (): Promise<BackupRun> => {
    inFlight ??= once().then((run) => {
      runs.unshift(run);
      runs.length = Math.min(runs.length, 10);
      inFlight = null;
      return run;
    });
    return inFlight;
  };

  const schedule = (delayMs: number) => {
    if (closed || everyMs === null) return;
    timer = clock.setTimer(delayMs, () => {
      timer = null;
      void runNow().then(() => schedule(everyMs));
    });
  };
  if (everyMs !== null) {
    const newest = listBackups(dir)[0];
    schedule(newest ? Math.max(0, newest.at + everyMs - clock.now()) : everyMs);
  } else if (!sqlite && config.backup.every !== 'off') {
    logger.info('backups: storage is PostgreSQL, so Pharos schedules none; back it up with pg_dump (docs/operations.md "Backups and restore")');
  }

  return {
    status: () => ({ every: sqlite ? config.backup.every : 'postgres', keep: config.backup.keep, dir, files: sqlite ? listBackups(dir).map(({ name, bytes, at }) => ({ name, bytes, at })) : [], runs: [...runs] }),
    runNow,
    async close() {
      closed = true;
      timer?.cancel();
      await inFlight;
    },
  };
}
