import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../lib/errors.ts';
import { checkDbFile } from '../store/backup-files.ts';
import { maintenanceConfig, parse, withStore, type CliCommand } from './command.ts';

/** `pharos backup FILE`: an online SQLite backup (the server may keep running). */
export const command: CliCommand = {
  help: `Usage: pharos backup [--config FILE] DEST
Writes an online backup of the database (<data_dir>/pharos.db) to DEST while Pharos may keep running.
The copy passes PRAGMA integrity_check before it is named DEST. Refuses to overwrite DEST. SQLite only (storage.driver postgres: use pg_dump). Unset \${VARIABLES} in config.yaml do not matter here.`,
  async run(args, env) {
    const { values, positionals } = parse(args, {});
    const dest = positionals[0];
    if (!dest) throw new AppError(400, 'cli.invalid', 'backup: give the destination FILE');
    if (existsSync(dest)) throw new AppError(409, 'cli.exists', `backup: ${dest} already exists; refusing to overwrite`);
    const config = maintenanceConfig(env, values.config);
    if (config.storage.driver !== 'sqlite') {
      throw new AppError(400, 'cli.invalid', 'backup: storage.driver is postgres: back up PostgreSQL with its own tools (pg_dump, or your provider\'s backups); pharos backup copies the SQLite file only');
    }
    return withStore(config, env, async (store, nativeBinding) => {
      const tmp = `${dest}.partial`;
      rmSync(tmp, { force: true });
      try {
        await store.backupTo(tmp);
        // Checked like a scheduled backup (integrity_check, one self-contained file) before it gets its name.
        const check = checkDbFile(tmp, nativeBinding, { ownCopy: true });
        if (!check.ok) throw new Error(check.problem ?? 'check failed');
        renameSync(tmp, dest);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw new AppError(500, 'cli.backup_failed', `backup: cannot write ${dest}: ${(e as Error).message}`);
      }
      process.stdout.write(`backup written to ${dest} (from ${join(config.data_dir, 'pharos.db')})\n`);
      return 0;
    });
  },
};
