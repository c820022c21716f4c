import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { buildTarget, sqliteNativeBinding } from '../lib/sea.ts';
import { preUpgradeCopyName, schemaStatusOfFile, sqliteVersion } from '../store/db.ts';
import { PHAROS_VERSION } from '../version.ts';
import { parse, type CliCommand, type Env } from './command.ts';

/**
 * `pharos version`: Pharos, Node and SQLite versions and the build target; needs no config or data dir.
 * `--check-db` also says whether the SQLite database of the data dir needs migrations (issue 37 point 4).
 */
export const command: CliCommand = {
  help: `Usage: pharos version [--check-db [--data-dir DIR | --config FILE]]
Prints the Pharos, Node and SQLite versions and the target (e.g. linux-arm64, single executable).
Needs no configuration and no data dir.
--check-db: also reads the schema version of <data_dir>/pharos.db (DIR, else data_dir of the
configuration, env PHAROS_DATA_DIR) without changing it, and names the migrations the next start
runs (Pharos copies the database first, to pharos.db.schema<N>.before-upgrade-to-<M>).
Exit code 0 (up to date, or migrations pending), 3 when the database was written by a newer Pharos
(this one refuses to start on it), 1 when there is no database. SQLite only.`,
  async run(args, env) {
    const { values } = parse(args, { 'check-db': { type: 'boolean' }, 'data-dir': { type: 'string' } });
    const sqlite = sqliteVersion(sqliteNativeBinding(env));
    process.stdout.write(`pharos ${PHAROS_VERSION}\nnode ${process.version}\nsqlite ${sqlite}\ntarget ${buildTarget()}\n`);
    if (!values['check-db']) return 0;
    return checkDb(values['data-dir'] ?? loadConfig(env, values.config, { unsetVariables: 'placeholder' }).data_dir, env);
  },
};

/** Prints the schema state of `<dataDir>/pharos.db` (opened read-only); returns the exit code. */
function checkDb(dataDir: string, env: Env): number {
  const file = join(dataDir, 'pharos.db');
  if (!existsSync(file)) {
    process.stdout.write(`database ${file}: none (the first start creates it)\n`);
    return 1;
  }
  const { current, latest, pending, newer } = schemaStatusOfFile(file, sqliteNativeBinding(env, dataDir));
  if (newer) {
    process.stdout.write(`database ${file}: schema version ${current} was written by a newer Pharos (this one knows up to ${latest}): it refuses to start on it (exit code 3); run the newer Pharos or restore a backup\n`);
    return 3;
  }
  if (pending.length === 0) {
    process.stdout.write(`database ${file}: schema version ${current}: up to date\n`);
    return 0;
  }
  const copy = current >= 1 ? `; the next start copies it to ${preUpgradeCopyName(file, current, latest)} first` : '';
  process.stdout.write(`database ${file}: schema version ${current}; this Pharos needs ${latest}: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending: ${pending.map((m) => `${m.version} ${m.name}`).join(', ')}${copy}\n`);
  return 0;
}
