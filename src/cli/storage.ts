import { AppError } from '../lib/errors.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';
import { copyStorage, describeTarget, type StorageTarget } from '../store/open.ts';
import { redactUrl } from '../store/pg/driver.ts';
import { parse, type CliCommand, type Env } from './command.ts';

/** `sqlite:DIR` or `postgres://…` → a store target (pool of 2, statement timeout 10 min: a copy runs long statements). */
function targetOf(spec: string | undefined, flag: string, env: Env): StorageTarget {
  if (!spec) throw new AppError(400, 'cli.invalid', `storage copy: ${flag} is required (sqlite:DIR or postgres://user:password@host/db)`);
  if (spec.startsWith('sqlite:')) {
    const dataDir = spec.slice('sqlite:'.length) || '.';
    return { driver: 'sqlite', dataDir, nativeBinding: sqliteNativeBinding(env, dataDir) };
  }
  if (/^postgres(ql)?:\/\//.test(spec)) return { driver: 'postgres', url: spec, poolSize: 2, statementTimeoutMs: 600_000 };
  throw new AppError(400, 'cli.invalid', `storage copy: ${flag}: must be sqlite:DIR or a postgres:// URL`);
}

/** `pharos storage copy --from sqlite:./data --to postgres://…` (issue 22): moves an install to PostgreSQL. */
export const command: CliCommand = {
  help: `Usage: pharos storage copy --from sqlite:DIR --to postgres://USER:PASSWORD@HOST:PORT/DB
Copies every table of the SQLite database DIR/pharos.db into an empty PostgreSQL database (its schema
is created first), in one transaction, then counts the rows of every table on both sides and prints
them. Refuses a target that already holds data. Stop Pharos first; afterwards set storage.driver:
postgres and storage.postgres_url (or PHAROS_DATABASE_URL) and start it again.`,
  async run(args, env) {
    const { values, positionals } = parse(args, { from: { type: 'string' }, to: { type: 'string' } });
    if (positionals[0] !== 'copy' || positionals.length !== 1) throw new AppError(400, 'cli.invalid', 'storage: the only subcommand is `storage copy --from sqlite:DIR --to postgres://…`');
    const from = targetOf(values.from, '--from', env);
    const to = targetOf(values.to, '--to', env);
    if (from.driver !== 'sqlite' || to.driver !== 'postgres') throw new AppError(400, 'cli.invalid', 'storage copy: copies from sqlite:DIR to postgres://… only');
    const counts = copyStorage(from, to);
    const width = Math.max(...counts.map((c) => c.table.length));
    for (const c of counts) process.stdout.write(`${c.table.padEnd(width)}  ${c.target}\n`);
    process.stdout.write(`copied ${counts.reduce((n, c) => n + c.target, 0)} rows in ${counts.length} tables from ${describeTarget(from)} to ${redactUrl(to.url)}; counts verified\n`);
    return 0;
  },
};
