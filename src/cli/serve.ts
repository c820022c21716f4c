import { existsSync } from 'node:fs';
import { configChanges, LIVE_KEYS } from '../config/changes.ts';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { createLogger, type AdjustableLogger } from '../lib/logger.ts';
import { enableOptimizer } from '../lib/optimizer.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';
import { startPharos } from '../pharos.ts';
import { PHAROS_VERSION } from '../version.ts';
import { parse, type CliCommand } from './command.ts';

/** `pharos serve`: the monitor, API and status pages in one process until SIGTERM/SIGINT. */
export const command: CliCommand = {
  help: `Usage: pharos serve [--config FILE]
Runs the monitor, the API and the status pages in one process until SIGTERM or SIGINT (then it stops
accepting requests, finishes checks in flight, flushes results and checkpoints the database).
SIGHUP re-reads the configuration: log_level, channels and escalation_policies are applied at once
(integrations and policies provisioned again); the log names every other changed key
(they take effect at the next start); an invalid file is refused and the running configuration stays.
Configuration: FILE, else $PHAROS_CONFIG, else ./config.yaml when it exists (every key in
config.example.yaml); env PHAROS_LISTEN, PHAROS_DATA_DIR, PHAROS_PUBLIC_URL, PHAROS_ADMIN_TOKEN override it.
Every \${VARIABLE} config.yaml references must be set.`,
  async run(args, env) {
    const { values } = parse(args, {});
    let config = loadConfig(env, values.config);
    const logger = createLogger(config.log_level, undefined, config.log.format);
    const pharos = await startPharos({ config, logger, nativeBinding: sqliteNativeBinding(env, config.data_dir) });
    if (pharos.firstStartToken) {
      process.stdout.write(`Admin API token (shown once, keep it safe):\n${pharos.firstStartToken}\n`);
    }
    const configFile = values.config ?? env.PHAROS_CONFIG ?? (existsSync('config.yaml') ? 'config.yaml' : null);
    logger.info(`config loaded from ${configFile ?? 'defaults and environment (no config.yaml)'}`, { config: configFile });
    const monitors = pharos.core.probes.activeCount();
    // Start is over: TurboFan on for what grows hot from now on (the binary starts without it, issue 38).
    enableOptimizer();
    // Every address it listens on (each interface's when listening on 0.0.0.0 or ::), not only public_url (issue 33 point 10).
    logger.info(`pharos ${PHAROS_VERSION} listening on ${pharos.urls.join(', ')} with ${monitors} active monitors`, { url: pharos.url, urls: pharos.urls, public_url: config.public_url, data_dir: config.data_dir, monitors });
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info(`shutting down (${signal})`, { signal });
        pharos.close().then(resolve, (e) => {
          logger.error('shutdown failed', { error: (e as Error).message });
          resolve();
        });
      };
      const reload = () => {
        const before = config;
        config = reloadConfig(config, () => loadConfig(env, values.config), logger, configFile);
        // A valid file: its channels and escalation policies are provisioned again (issue 32; logs its own line).
        if (config !== before) void pharos.provision(config);
      };
      process.on('SIGHUP', reload);
      process.once('SIGTERM', () => (process.off('SIGHUP', reload), stop('SIGTERM')));
      process.once('SIGINT', () => (process.off('SIGHUP', reload), stop('SIGINT')));
    });
    return 0;
  },
};

/**
 * SIGHUP: reads the configuration again and logs one line saying what happened. `log_level` (see
 * LIVE_KEYS) is applied at once; other changed keys are named (never their values, which may be
 * secrets) as needing a restart. An unreadable or invalid file is refused with its message.
 * @returns the configuration now in force: the new one when valid (its live keys applied), else `running`
 */
export function reloadConfig(running: Readonly<Config>, load: () => Readonly<Config>, logger: AdjustableLogger, file: string | null): Readonly<Config> {
  const from = file ?? 'defaults and environment';
  let next: Readonly<Config>;
  try {
    next = load();
  } catch (e) {
    logger.error(`config reload refused, the running configuration stays: ${(e as Error).message}`, { config: file });
    return running;
  }
  const changed = configChanges(running, next);
  const live = changed.filter((k) => (LIVE_KEYS as readonly string[]).includes(k));
  const later = changed.filter((k) => !live.includes(k));
  if (live.includes('log_level')) logger.setLevel(next.log_level);
  const parts = [
    changed.length === 0 ? 'nothing changed' : null,
    live.length ? `applied ${live.map((k) => (k === 'log_level' ? `log_level ${running.log_level} → ${next.log_level}` : k)).join(', ')}` : null,
    later.length ? `changed but applied at the next restart: ${later.join(', ')}` : null,
  ].filter(Boolean);
  logger.info(`config reloaded from ${from}: ${parts.join('; ')}`, { config: file, applied: live, restart_needed: later });
  // Keys that need a restart keep their running values, so the next reload compares against what runs.
  return { ...running, ...Object.fromEntries(live.map((k) => [k, next[k as keyof Config]])) } as Readonly<Config>;
}
