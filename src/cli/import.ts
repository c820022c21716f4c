import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/schema.ts';
import { createCore } from '../core/index.ts';
import { importKuma, kumaWriters, type KumaImportItem, type KumaImportReport } from '../core/import-kuma.ts';
import { parseKumaBackup, type KumaData } from '../domain/kuma/types.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { silentLogger } from '../lib/logger.ts';
import { storageTarget } from '../config/storage.ts';
import { openStore } from '../store/open.ts';
import { readKumaDb } from '../store/kuma.ts';
import { openSecretBox } from '../store/secret-check.ts';
import type { CliOutput } from './alert.ts';
import { maintenanceConfig, parse, type CliCommand } from './command.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';

/**
 * Reads Kuma data from `path`: a data directory (its `kuma.db`), a `kuma.db` file, or a JSON
 * backup (a file whose first non-blank character is `{`).
 * @throws AppError 400 naming the path when it is none of these
 */
export function readKuma(path: string, nativeBinding?: object): KumaData {
  if (!existsSync(path)) throw new AppError(400, 'cli.invalid', `import kuma: ${path} does not exist`);
  const file = statSync(path).isDirectory() ? join(path, 'kuma.db') : path;
  if (!existsSync(file)) throw new AppError(400, 'cli.invalid', `import kuma: no kuma.db in ${path}`);
  const head = readFileSync(file).subarray(0, 64).toString('utf8').trimStart();
  try {
    return head.startsWith('{') ? parseKumaBackup(readFileSync(file, 'utf8')) : readKumaDb(file, nativeBinding);
  } catch (e) {
    throw new AppError(400, 'cli.invalid', `import kuma: ${(e as Error).message}`);
  }
}

/** How the exit summary names `n` skipped items of one kind. */
const KIND_WORDS: Array<[KumaImportItem['kind'][], string, string]> = [
  [['monitor', 'healthcheck'], 'monitor', 'monitors'],
  [['notification'], 'notification', 'notifications'],
  [['policy'], 'escalation policy', 'escalation policies'],
  [['statuspage'], 'status page', 'status pages'],
  [['maintenance'], 'maintenance window', 'maintenance windows'],
];

/**
 * The report as lines: one per Kuma object (and per escalation policy), with notes indented below
 * it (what changed on the way, what was not carried), a skipped one with its reason; then the exit
 * summary: counts, and the not imported ones by kind.
 */
export function reportLines(report: KumaImportReport): string[] {
  const lines: string[] = [];
  for (const i of report.items) {
    const head = `${i.result.padEnd(9)} ${i.kind}${i.kumaId === null ? '' : ` ${i.kumaId}`} "${i.name}"`;
    lines.push(i.result === 'skipped' ? `${head}: ${i.reason}` : i.uuid ? `${head} → ${i.uuid}` : head);
    for (const n of i.notes) lines.push(`    ${n}`);
    if (i.pingUrl) lines.push(`    ping URL: ${i.pingUrl}`);
  }
  const count = (r: KumaImportItem['result']) => report.items.filter((i) => i.result === r).length;
  const skipped = KIND_WORDS.flatMap(([kinds, one, many]) => {
    const n = report.items.filter((i) => i.result === 'skipped' && kinds.includes(i.kind)).length;
    return n === 0 ? [] : [`${n} ${n === 1 ? one : many}`];
  });
  const notImported = skipped.length === 0 ? '0 not imported' : `${count('skipped')} not imported: ${skipped.join(', ')} (reasons above)`;
  lines.push(`Uptime Kuma ${report.source === 'backup' ? 'JSON backup' : report.source}: ${count('created')} created, ${count('unchanged')} unchanged, ${count('linked')} linked to a policy, ${notImported}`);
  return lines;
}

/**
 * `pharos import kuma PATH`: imports into the database of the configuration (run it with Pharos
 * stopped, then start Pharos): monitors, pages and windows, and the notifications as integrations
 * (secrets sealed with the installation's key: `PHAROS_SECRET_KEY` or `<data_dir>/secret.key`, as
 * `pharos serve` loads it) with escalation policies linked to the monitors. Prints the report.
 * @returns 0 (objects that were not imported are reported, not errors)
 * @throws AppError 400 for a path that is no Kuma data; the secret key's errors (store/secret-check.ts)
 */
export async function runImportCommand(
  sub: string | undefined,
  path: string | undefined,
  options: { nativeBinding?: object | undefined },
  config: Readonly<Config>,
  io: CliOutput,
): Promise<number> {
  if (sub !== 'kuma') throw new AppError(400, 'cli.invalid', 'import: the only source is `import kuma PATH`');
  if (!path) throw new AppError(400, 'cli.invalid', 'import kuma: give the Kuma data directory, its kuma.db, or a JSON backup');
  const data = readKuma(path, options.nativeBinding);
  const store = openStore(storageTarget(config, options.nativeBinding));
  let report: KumaImportReport;
  try {
    const { box } = await openSecretBox(store, { dataDir: config.data_dir, keyText: config.secret_key, now: systemClock.now() });
    const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
    report = importKuma({ store, clock: systemClock, publicUrl: config.public_url, writers: kumaWriters(config), statuspages: core.statuspages, seal: (t) => box.seal(t) }, data);
  } finally {
    store.close();
  }
  for (const line of reportLines(report)) io.out(line);
  return 0;
}

/** `pharos import kuma PATH` as a CLI command (src/main.ts table). */
export const command: CliCommand = {
  help: `Usage: pharos import kuma [--config FILE] PATH
Imports an Uptime Kuma data directory, its kuma.db (1.23 or 2.x) or a JSON backup into this Pharos's
database (run it with Pharos stopped, then start Pharos), in one transaction: monitors (push monitors
as healthchecks), status pages, fixed-time maintenance, and notifications as integrations (secrets
sealed with the same key as pharos serve) with one escalation policy per set of notifications, linked
to the monitors. A second run creates nothing again, and links monitors imported earlier without one.
What is not imported, or not carried, is listed with the reason.`,
  async run(args, env) {
    const { values, positionals } = parse(args, { 'with-secrets': { type: 'boolean' }, output: { type: 'string' } });
    if (values.output !== undefined || values['with-secrets'] !== undefined) {
      throw new AppError(400, 'cli.invalid', 'import kuma: --output and --with-secrets are gone: the import creates integrations and escalation policies in the database (no config.kuma.yaml to merge)');
    }
    const config = maintenanceConfig(env, values.config);
    const nativeBinding = sqliteNativeBinding(env, config.data_dir);
    const io: CliOutput = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') };
    return runImportCommand(positionals[0], positionals[1], { nativeBinding }, config, io);
  },
};
