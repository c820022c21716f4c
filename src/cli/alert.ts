import { loadConfig } from '../config/load.ts';
import { parse, type CliCommand } from './command.ts';
import type { Config } from '../config/schema.ts';
import { createChannels } from '../alerting/channels/index.ts';
import { createChannelTester } from '../alerting/test-alert.ts';
import { channelsService } from '../core/channels.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';

/** Output streams of a CLI command (process.stdout/stderr in main, buffers in tests). */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/**
 * `pharos alert test CHANNEL`: delivers a sample alert through one configured channel (and, for
 * PagerDuty/Opsgenie, its resolve) without touching the database, and prints each answer:
 *
 * ```
 * ops-slack (slack): alert → 200 ok
 * ```
 *
 * @returns 0 when every delivery was accepted, 1 when the provider refused or could not be reached
 * @throws AppError 400 for a missing or unknown sub-command, 404 for an unknown channel
 */
export async function runAlertCommand(sub: string | undefined, name: string | undefined, config: Readonly<Config>, io: CliOutput): Promise<number> {
  if (sub !== 'test') throw new AppError(400, 'cli.invalid', 'alert: the only sub-command is `alert test CHANNEL`');
  if (!name) throw new AppError(400, 'cli.invalid', `alert test: give a channel name (${config.channels.map((c) => c.name).join(', ') || 'none configured'})`);
  const channels = createChannels(config.channels);
  try {
    const service = channelsService({ config, tester: createChannelTester({ channels, configs: config.channels, publicUrl: config.public_url, clock: systemClock }) });
    const result = await service.test(name);
    for (const a of result.answers) {
      const line = `${result.channel} (${result.type}): ${a.kind} → ${a.status ?? 'no answer'} ${a.body.replace(/\s+/g, ' ').trim()}`;
      if (result.ok) io.out(line);
      else io.err(line);
    }
    if (!result.ok) io.err(`${result.channel}: delivery failed: ${result.error}`);
    return result.ok ? 0 : 1;
  } finally {
    await Promise.all([...channels.values()].map((c) => c.close()));
  }
}

const stdio: CliOutput = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n') };

/** `pharos alert test CHANNEL` as a CLI command (src/main.ts table). */
export const command: CliCommand = {
  help: `Usage: pharos alert test [--config FILE] CHANNEL
Delivers a sample alert through one channel of config.yaml (and, for PagerDuty/Opsgenie, its resolve)
and prints the provider's answer. Exit 1 when the provider refused or could not be reached.`,
  async run(args, env) {
    const { values, positionals } = parse(args, {});
    return runAlertCommand(positionals[0], positionals[1], loadConfig(env, values.config), stdio);
  },
};
