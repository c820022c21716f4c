/** One listed (finished, verified) backup file, as the console shows it. */
export interface BackupFileInfo {
  /** File name, `pharos-YYYYMMDD-HHMMSSZ.db` (UTC time the backup started). */
  name: string;
  /** Size in bytes. */
  bytes: number;
  /** When it started, UTC epoch ms (from the name). */
  at: number;
}

/** The outcome of one scheduled backup of this process (src/backup-schedule.ts). */
export interface BackupRun {
  /** When it started, UTC epoch ms. */
  at: number;
  ok: boolean;
  /** The backup's file name when ok, else null. */
  name: string | null;
  /** Its size in bytes when ok, else null. */
  bytes: number | null;
  /** How long it took, ms. */
  ms: number;
  /** Why it failed, one line; null when ok. */
  error: string | null;
}

/** Scheduled backups as the console's Settings shows them (issue 37 point 3). */
export interface BackupStatus {
  /** `backup.every` (e.g. `6h`), `off`, or `postgres` (no scheduled backups: pg_dump). */
  every: string;
  keep: number;
  /** The backup folder. */
  dir: string;
  /** The listed backups, newest first. */
  files: BackupFileInfo[];
  /** This process's runs, newest first (at most 10). */
  runs: BackupRun[];
}
