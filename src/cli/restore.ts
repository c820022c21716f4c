import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../lib/errors.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';
import { backupName, checkDbFile } from '../store/backup-files.ts';
import { dataDirServer } from '../store/data-dir-lock.ts';
import { maintenanceConfig, parse, type CliCommand } from './command.ts';

/**
 * `pharos restore FILE`: puts a backup in place of `<data_dir>/pharos.db` (issue 37 point 3).
 * Refuses while a Pharos serves the data dir (the lock it holds on `pharos.lock`, store/data-dir-lock.ts) and a file
 * that fails the checks of a backup (integrity_check, Pharos tables, a schema not newer than this
 * binary). The database it replaces is kept as `pharos.db.<time>.before-restore` (with its `-wal`).
 */
export const command: CliCommand = {
  help: `Usage: pharos restore [--config FILE] BACKUP
Replaces the database (<data_dir>/pharos.db) with BACKUP (a file from pharos backup or the
scheduled backups in <data_dir>/backups). Stop Pharos first: refused while a Pharos serves the data dir.
BACKUP is checked before anything changes (PRAGMA integrity_check, Pharos's tables, a schema version
this Pharos knows); the database it replaces is kept as pharos.db.<time>.before-restore.
Integration secrets in BACKUP open only with the same secret key (<data_dir>/secret.key or secret_key).
SQLite only (storage.driver postgres: use pg_restore / psql).`,
  async run(args, env) {
    const { values, positionals } = parse(args, {});
    const file = positionals[0];
    if (!file) throw new AppError(400, 'cli.invalid', 'restore: give the BACKUP file to restore');
    if (!existsSync(file)) throw new AppError(404, 'cli.not_found', `restore: ${file} does not exist`);
    const config = maintenanceConfig(env, values.config);
    if (config.storage.driver !== 'sqlite') {
      throw new AppError(400, 'cli.invalid', 'restore: storage.driver is postgres: restore PostgreSQL with its own tools (pg_restore or psql, docs/operations.md "Backups and restore")');
    }
    const dir = config.data_dir;
    const binding = sqliteNativeBinding(env, dir);
    mkdirSync(dir, { recursive: true });
    const pid = dataDirServer(dir, binding);
    if (pid !== null) {
      throw new AppError(409, 'cli.server_running', `restore: a Pharos (process ${pid}) is serving ${dir}; stop it first (systemctl stop pharos, or docker compose stop), then restore`);
    }
    const check = checkDbFile(file, binding);
    if (!check.ok) throw new AppError(400, 'cli.bad_backup', `restore: ${file} cannot be restored: ${check.problem}; nothing was changed`);
    const db = join(dir, 'pharos.db');
    const incoming = join(dir, '.pharos.db.restoring');
    copyFileSync(file, incoming);
    let kept: string | null = null;
    if (existsSync(db)) {
      kept = join(dir, `pharos.db.${backupName(Date.now()).slice(7, -3)}.before-restore`);
      renameSync(db, kept);
      for (const side of ['-wal', '-shm']) {
        // The old database's WAL goes with it (its last commits live there until a checkpoint).
        if (existsSync(db + side)) {
          if (side === '-wal') renameSync(db + side, kept + side);
          else rmSync(db + side, { force: true });
        }
      }
    }
    renameSync(incoming, db);
    process.stdout.write(`restored ${file} (schema version ${check.version}, integrity_check ok) to ${db}${kept ? `; the previous database is kept as ${kept}` : ''}\nStart Pharos again: pending migrations run at start.\n`);
    return 0;
  },
};
