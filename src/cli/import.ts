import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Config } from '../config/schema.ts';
import { createCore } from '../core/index.ts';
import { importKuma, kumaWriters, type KumaImportReport } from '../core/import-kuma.ts';
import { parseKumaBackup, type KumaData } from '../domain/kuma/types.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { silentLogger } from '../lib/logger.ts';
import { storageTarget } from '../config/storage.ts';
import { openStore } from '../store/open.ts';
import { readKumaDb } from '../store/kuma.ts';
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

/** The report as lines: one per Kuma object, with notes indented below it. */
export function reportLines(report: KumaImportReport): string[] {
  const lines: string[] = [];
  const count = (r: string) => report.items.filter((i) => i.result === r && i.kind !== 'notification').length;
  lines.push(`Uptime Kuma ${report.source === 'backup' ? 'JSON backup' : report.source}: ${count('created')} created, ${count('unchanged')} unchanged (imported before), ${count('skipped')} not mapped`);
  for (const i of report.items) {
    const head = `${i.result.padEnd(9)} ${i.kind} ${i.kumaId} "${i.name}"`;
    lines.push(i.result === 'skipped' ? `${head}: ${i.reason}` : i.uuid ? `${head} → ${i.uuid}` : head);
    if (i.pingUrl) lines.push(`    ping URL: ${i.pingUrl}`);
    for (const n of i.notes) lines.push(`    ${n}`);
  }
  return lines;
}

/**
 * `pharos import kuma PATH [--with-secrets] [--output FILE]`: imports into the database of
 * `config.data_dir` (run it with Pharos stopped, then start Pharos), prints the report, and writes
 * the notifications as channels and policies to `--output` (default `config.kuma.yaml`) for review.
 * Without `--with-secrets` secret fields are `${KUMA_<id>_<FIELD>}` placeholders.
 * @returns 0 (objects that were not mapped are reported, not errors)
 */
export async function runImportCommand(
  sub: string | undefined,
  path: string | undefined,
  options: { withSecrets: boolean; output: string | undefined; nativeBinding?: object | undefined },
  config: Readonly<Config>,
  io: CliOutput,
): Promise<number> {
  if (sub !== 'kuma') throw new AppError(400, 'cli.invalid', 'import: the only source is `import kuma PATH`');
  if (!path) throw new AppError(400, 'cli.invalid', 'import kuma: give the Kuma data directory, its kuma.db, or a JSON backup');
  const data = readKuma(path, options.nativeBinding);
  const store = openStore(storageTarget(config, options.nativeBinding));
  let report: KumaImportReport;
  try {
    const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
    report = importKuma({ store, clock: systemClock, publicUrl: config.public_url, writers: kumaWriters(config), statuspages: core.statuspages, escalation: core.escalation }, data, { withSecrets: options.withSecrets });
  } finally {
    store.close();
  }
  for (const line of reportLines(report)) io.out(line);
  const output = options.output ?? 'config.kuma.yaml';
  const header = `# Channels and escalation policies imported from Uptime Kuma (${new Date().toISOString().slice(0, 10)}).\n# Review, then merge into config.yaml.${options.withSecrets ? ' This file holds secrets.' : ' Secrets are ${KUMA_<id>_<FIELD>} placeholders: set those variables or paste the values.'}\n`;
  writeFileSync(output, header + stringify(report.config), { mode: options.withSecrets ? 0o600 : 0o644 });
  io.out(`wrote ${report.config.channels.length} channels and ${report.config.escalation_policies.length} escalation policies to ${output}`);
  return 0;
}

/** `pharos import kuma PATH` as a CLI command (src/main.ts table). */
export const command: CliCommand = {
  help: `Usage: pharos import kuma [--config FILE] [--with-secrets] [--output FILE] PATH
Imports an Uptime Kuma data directory, its kuma.db (1.23 or 2.x) or a JSON backup into this Pharos's
database (run it with Pharos stopped). Monitors, push monitors (as healthchecks), status pages and
fixed-time maintenance are created in one transaction; a second run with the same input changes nothing.
Notifications are written as channels to --output (default config.kuma.yaml) for review; secrets are
\${KUMA_<id>_<FIELD>} placeholders unless --with-secrets. What cannot be mapped is listed with the reason.`,
  async run(args, env) {
    const { values, positionals } = parse(args, { 'with-secrets': { type: 'boolean' }, output: { type: 'string' } });
    const config = maintenanceConfig(env, values.config);
    const nativeBinding = sqliteNativeBinding(env, config.data_dir);
    const io: CliOutput = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') };
    return runImportCommand(positionals[0], positionals[1], { withSecrets: values['with-secrets'] ?? false, output: values.output, nativeBinding }, config, io);
  },
};
