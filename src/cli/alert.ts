import { loadConfig } from '../config/load.ts';
import { parse, withStore, type CliCommand, type Env } from './command.ts';
import type { Config } from '../config/schema.ts';
import { createChannelTester } from '../alerting/test-alert.ts';
import { openSettings } from '../domain/integration.ts';
import { openSecretBox } from '../store/secret-check.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';

/** Output streams of a CLI command (process.stdout/stderr in main, buffers in tests). */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/**
 * `pharos alert test NAME`: delivers a sample alert through one integration (and, for
 * PagerDuty/Opsgenie, its resolve) and prints each answer:
 *
 * ```
 * ops-slack (slack): alert → 200 ok
 * ```
 *
 * The integration is looked up by name in the database (its secrets opened with the installation's
 * key); a channel that config.yaml declares but no start has provisioned yet is tested as declared.
 * Nothing is written (no outbox row, no `last_test_at`).
 * @returns 0 when every delivery was accepted, 1 when the provider refused or could not be reached
 * @throws AppError 400 for a missing or unknown sub-command, 404 for an unknown name; `secrets.*` for the key
 */
export async function runAlertCommand(sub: string | undefined, name: string | undefined, config: Readonly<Config>, io: CliOutput, env: Env = process.env): Promise<number> {
  if (sub !== 'test') throw new AppError(400, 'cli.invalid', 'alert: the only sub-command is `alert test CHANNEL`');
  const tester = createChannelTester({ publicUrl: config.public_url, clock: systemClock });
  const result = await withStore(config, env, async (store) => {
    const stored = await store.async.integrations.list();
    const names = [...new Set([...stored.map((i) => i.name), ...config.channels.map((c) => c.name)])].join(', ') || 'none configured';
    if (!name) throw new AppError(400, 'cli.invalid', `alert test: give a channel name (${names})`);
    const found = stored.find((i) => i.name === name);
    if (found) {
      const { box } = await openSecretBox(store, { dataDir: config.data_dir, keyText: config.secret_key, now: systemClock.now() });
      const settings = openSettings(found.settings, (await store.async.integrations.sealedSecrets(found.uuid)) ?? [], (sealed) => box.open(sealed));
      return tester({ name: found.name, kind: found.kind, settings });
    }
    const declared = config.channels.find((c) => c.name === name);
    if (!declared) throw new AppError(404, 'channels.not_found', `No channel named "${name}" (channels: ${names})`);
    const { name: _name, type, ...settings } = declared;
    return tester({ name, kind: type, settings });
  });
  for (const a of result.answers) {
    const line = `${result.channel} (${result.type}): ${a.kind} → ${a.status ?? 'no answer'} ${a.body.replace(/\s+/g, ' ').trim()}`;
    if (result.ok) io.out(line);
    else io.err(line);
  }
  if (!result.ok) io.err(`${result.channel}: delivery failed: ${result.error}`);
  return result.ok ? 0 : 1;
}

const stdio: CliOutput = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') };

/** `pharos alert test CHANNEL` as a CLI command (src/main.ts table). */
export const command: CliCommand = {
  help: `Usage: pharos alert test [--config FILE] CHANNEL
Delivers a sample alert through one integration (by name; and, for PagerDuty/Opsgenie, its resolve)
and prints the provider's answer. Exit 1 when the provider refused or could not be reached.`,
  async run(args, env) {
    const { values, positionals } = parse(args, {});
    return runAlertCommand(positionals[0], positionals[1], loadConfig(env, values.config), stdio, env);
  },
};
