import { existsSync } from 'node:fs';
import { loadConfig } from '../config/load.ts';
import { createLogger } from '../lib/logger.ts';
import { sqliteNativeBinding } from '../lib/sea.ts';
import { startPharos } from '../pharos.ts';
import { PHAROS_VERSION } from '../version.ts';
import { parse, type CliCommand } from './command.ts';

/** `pharos serve`: the monitor, API and status pages in one process until SIGTERM/SIGINT. */
export const command: CliCommand = {
  help: `Usage: pharos serve [--config FILE]
Runs the monitor, the API and the status pages in one process until SIGTERM or SIGINT (then it stops
accepting requests, finishes checks in flight, flushes results and checkpoints the database).
Configuration: FILE, else $PHAROS_CONFIG, else ./config.yaml when it exists (every key in
config.example.yaml); env PHAROS_LISTEN, PHAROS_DATA_DIR, PHAROS_PUBLIC_URL, PHAROS_ADMIN_TOKEN override it.
Every \${VARIABLE} config.yaml references must be set.`,
  async run(args, env) {
    const { values } = parse(args, {});
    const config = loadConfig(env, values.config);
    const logger = createLogger(config.log_level, undefined, config.log.format);
    const pharos = await startPharos({ config, logger, nativeBinding: sqliteNativeBinding(env, config.data_dir) });
    if (pharos.firstStartToken) {
      process.stdout.write(`Admin API token (shown once, keep it safe):\n${pharos.firstStartToken}\n`);
    }
    const configFile = values.config ?? env.PHAROS_CONFIG ?? (existsSync('config.yaml') ? 'config.yaml' : null);
    logger.info(`config loaded from ${configFile ?? 'defaults and environment (no config.yaml)'}`, { config: configFile });
    const monitors = pharos.core.probes.activeCount();
    logger.info(`pharos ${PHAROS_VERSION} listening on ${pharos.url} with ${monitors} active monitors`, { url: pharos.url, public_url: config.public_url, data_dir: config.data_dir, monitors });
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info(`shutting down (${signal})`, { signal });
        pharos.close().then(resolve, (e) => {
          logger.error('shutdown failed', { error: (e as Error).message });
          resolve();
        });
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    return 0;
  },
};
