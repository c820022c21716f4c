import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { buildTarget, sqliteNativeBinding } from '../lib/sea.ts';
import { preUpgradeCopyName, schemaStatusOfFile, sqliteVersion } from '../store/db.ts';
import type { Migration } from '../store/migrations/index.ts';
import { postgresSchemaStatus } from '../store/open.ts';
import { redactUrl } from '../store/pg/driver.ts';
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
--check-db: also reads the schema version of the database without changing it, and names the
migrations the next start runs: <data_dir>/pharos.db (DIR, else data_dir of the configuration, env
PHAROS_DATA_DIR; Pharos copies it first, to pharos.db.schema<N>.before-upgrade-to-<M>), or with
storage.driver postgres (env PHAROS_DATABASE_URL) the PostgreSQL database (pg_dump it first).
Exit code 0 (up to date, or migrations pending), 3 when the database was written by a newer Pharos
(this one refuses to start on it), 1 when there is no database (or an empty one).`,
  async run(args, env) {
    const { values } = parse(args, { 'check-db': { type: 'boolean' }, 'data-dir': { type: 'string' } });
    const sqlite = sqliteVersion(sqliteNativeBinding(env));
    process.stdout.write(`pharos ${PHAROS_VERSION}\nnode ${process.version}\nsqlite ${sqlite}\ntarget ${buildTarget()}\n`);
    if (!values['check-db']) return 0;
    if (values['data-dir']) return checkDb(values['data-dir'], env);
    const config = loadConfig(env, values.config, { unsetVariables: 'placeholder' });
    if (config.storage.driver === 'postgres') return checkPostgres(config.storage.postgres_url!, config.storage.postgres_statement_timeout_ms);
    return checkDb(config.data_dir, env);
  },
};

/** Prints the schema state of the PostgreSQL database at `url` (read only); returns the exit code. */
function checkPostgres(url: string, statementTimeoutMs: number): number {
  const { current, latest, pending, newer } = postgresSchemaStatus(url, statementTimeoutMs);
  const name = `database ${redactUrl(url)}`;
  if (current === 0) {
    process.stdout.write(`${name}: empty (the first start creates the schema)\n`);
    return 1;
  }
  return say(name, { current, latest, pending, newer }, 'Pharos takes no copy of a PostgreSQL database: pg_dump it first', 'restore the pg_dump taken before the upgrade');
}

/** The `--check-db` line of a database named `name` in `status`; returns the exit code (3: newer). */
function say(name: string, status: { current: number; latest: number; pending: Migration[]; newer: boolean }, copyNote: string, wayBack: string): number {
  const { current, latest, pending, newer } = status;
  if (newer) {
    process.stdout.write(`${name}: schema version ${current} was written by a newer Pharos (this one knows up to ${latest}): it refuses to start on it (exit code 3); run the newer Pharos or ${wayBack}\n`);
    return 3;
  }
  if (pending.length === 0) {
    process.stdout.write(`${name}: schema version ${current}: up to date\n`);
    return 0;
  }
  process.stdout.write(`${name}: schema version ${current}; this Pharos needs ${latest}: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending: ${pending.map((m) => `${m.version} ${m.name}`).join(', ')}${copyNote ? `; ${copyNote}` : ''}\n`);
  return 0;
}

/** Prints the schema state of `<dataDir>/pharos.db` (opened read-only); returns the exit code. */
function checkDb(dataDir: string, env: Env): number {
  const file = join(dataDir, 'pharos.db');
  if (!existsSync(file)) {
    process.stdout.write(`database ${file}: none (the first start creates it)\n`);
    return 1;
  }
  const status = schemaStatusOfFile(file, sqliteNativeBinding(env, dataDir));
  const copy = status.current >= 1 ? `the next start copies it to ${preUpgradeCopyName(file, status.current, status.latest)} first` : '';
  return say(`database ${file}`, status, copy, 'restore a backup');
}
