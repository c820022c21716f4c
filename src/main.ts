#!/usr/bin/env node
import { existsSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config/load.ts';
import { createCore } from './core/index.ts';
import { TOKEN_SCOPES, type TokenScope } from './domain/user.ts';
import { systemClock } from './lib/clock.ts';
import { AppError } from './lib/errors.ts';
import { createLogger, silentLogger } from './lib/logger.ts';
import { startPharos } from './pharos.ts';
import { openDb, sqliteVersion } from './store/db.ts';
import { sqliteNativeBinding } from './lib/sea.ts';
import { createStore } from './store/index.ts';
import { PHAROS_VERSION } from './version.ts';
import { ProbeAgent } from './agent/agent.ts';
import { REGIONS, type Region } from './domain/regions.ts';
import { DEFAULT_USER_AGENT } from './domain/probe.ts';

const USAGE = `Usage: pharos <command>
  serve [--config FILE]                                   run the monitor, API and status pages
  agent --server URL --region R [--token T] [--source-address A] [--name N]
                                                          run a remote probe for region R (token: a probe-scope
                                                          token, or PHAROS_AGENT_TOKEN)
  token create --email E --name N --scope read|write|probe create an API token (prints only the token)
  token list                                              list tokens (never their secrets)
  token revoke ID                                         revoke a token by its id (key_…)
  backup FILE                                             online backup of the database to FILE
  version                                                 print versions
Environment: PHAROS_CONFIG, PHAROS_LISTEN, PHAROS_DATA_DIR, PHAROS_PUBLIC_URL, PHAROS_ADMIN_TOKEN, PHAROS_AGENT_TOKEN`;

/** Runs one CLI command; returns the process exit code. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      server: { type: 'string' },
      token: { type: 'string' },
      region: { type: 'string' },
      'source-address': { type: 'string' },
      buffer: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, sub, arg] = positionals;
  if (values.help || !cmd) {
    process.stdout.write(USAGE + '\n');
    return cmd || values.help ? 0 : 2;
  }
  if (cmd === 'agent') return runAgent(values);
  const nativeBinding = sqliteNativeBinding(process.env);
  if (cmd === 'version') {
    const sqlite = sqliteVersion(nativeBinding);
    process.stdout.write(`pharos ${PHAROS_VERSION}\nnode ${process.version}\nsqlite ${sqlite}\n`);
    return 0;
  }
  const config = loadConfig(process.env, values.config);

  if (cmd === 'serve') {
    const logger = createLogger(config.log_level, undefined, config.log.format);
    const pharos = await startPharos({ config, logger, nativeBinding });
    if (pharos.firstStartToken) {
      process.stdout.write(`Admin API token (shown once, keep it safe):\n${pharos.firstStartToken}\n`);
    }
    const configFile = values.config ?? process.env.PHAROS_CONFIG ?? (existsSync('config.yaml') ? 'config.yaml' : null);
    logger.info(`config loaded from ${configFile ?? 'defaults and environment (no config.yaml)'}`, { config: configFile });
    logger.info(`pharos ${PHAROS_VERSION} listening on ${pharos.url} with ${pharos.core.probes.activeCount()} active monitors`, { url: pharos.url, data_dir: config.data_dir, monitors: pharos.core.probes.activeCount() });
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
  }

  const db = openDb(config.data_dir, undefined, nativeBinding);
  try {
    if (cmd === 'token') {
      const core = createCore({ store: createStore(db), clock: systemClock, logger: silentLogger, config });
      if (sub === 'create') {
        const scope = (values.scope ?? 'write') as TokenScope;
        if (!TOKEN_SCOPES.includes(scope)) throw new AppError(400, 'cli.invalid', `--scope: must be one of ${TOKEN_SCOPES.join(', ')}`);
        if (!values.email) throw new AppError(400, 'cli.invalid', '--email: is required');
        const { token } = core.users.createToken({ email: values.email, name: values.name ?? values.email, scope });
        process.stdout.write(token + '\n');
        return 0;
      }
      if (sub === 'list') {
        for (const t of core.users.listTokens()) {
          process.stdout.write(`${t.id}\t${t.scope}\t${t.user.email}\t${t.name}\t${new Date(t.createdAt).toISOString()}\t${t.revokedAt ? 'revoked' : 'active'}\n`);
        }
        return 0;
      }
      if (sub === 'revoke') {
        if (!arg) throw new AppError(400, 'cli.invalid', 'token revoke: give the token id (key_…) from `pharos token list`');
        if (!core.users.revokeToken(arg)) throw new AppError(404, 'cli.not_found', `no active token with id ${arg}`);
        process.stdout.write(`revoked ${arg}\n`);
        return 0;
      }
    }
    if (cmd === 'backup') {
      if (!sub) throw new AppError(400, 'cli.invalid', 'backup: give the destination FILE');
      if (existsSync(sub)) throw new AppError(409, 'cli.exists', `backup: ${sub} already exists; refusing to overwrite`);
      const tmp = `${sub}.partial`;
      rmSync(tmp, { force: true });
      try {
        await db.backup(tmp);
        renameSync(tmp, sub);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw new AppError(500, 'cli.backup_failed', `backup: cannot write ${sub}: ${(e as Error).message}`);
      }
      process.stdout.write(`backup written to ${sub} (from ${join(config.data_dir, 'pharos.db')})\n`);
      return 0;
    }
  } finally {
    db.close();
  }
  process.stderr.write(USAGE + '\n');
  return 2;
}

/**
 * `pharos agent`: a remote probe (issue #7) until SIGTERM/SIGINT, then a last push of what is buffered.
 * @throws AppError 400 on a missing or invalid flag
 */
async function runAgent(values: { server?: string | undefined; token?: string | undefined; region?: string | undefined; name?: string | undefined; 'source-address'?: string | undefined; buffer?: string | undefined }): Promise<number> {
  const token = values.token ?? process.env.PHAROS_AGENT_TOKEN;
  if (!values.server || !/^https?:\/\//.test(values.server)) throw new AppError(400, 'cli.invalid', '--server: must be the main\'s URL, e.g. https://pharos.example.com');
  if (!token) throw new AppError(400, 'cli.invalid', '--token (or PHAROS_AGENT_TOKEN): a probe-scope token is required');
  if (!(REGIONS as readonly string[]).includes(values.region ?? '')) throw new AppError(400, 'cli.invalid', `--region: must be one of ${REGIONS.join(', ')}`);
  const bufferLimit = values.buffer === undefined ? 100_000 : Number(values.buffer);
  if (!Number.isInteger(bufferLimit) || bufferLimit < 100) throw new AppError(400, 'cli.invalid', '--buffer: must be a whole number of results, at least 100');
  const logger = createLogger('info');
  const agent = new ProbeAgent(
    {
      server: values.server,
      token,
      region: values.region as Region,
      name: values.name ?? hostname(),
      version: PHAROS_VERSION,
      sourceAddress: values['source-address'],
      userAgent: DEFAULT_USER_AGENT,
      maxConcurrentChecks: 2000,
      bufferLimit,
      batchSize: 1000,
      pushIntervalMs: 1000,
    },
    { clock: systemClock, logger },
  );
  agent.start();
  logger.info('pharos agent started', { agent: agent.id, region: values.region, server: values.server, source_address: values['source-address'] ?? null });
  // The clock's timers are unref'd and a down main leaves no socket open: keep the process alive.
  const keepAlive = setInterval(() => {}, 1 << 30);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  clearInterval(keepAlive);
  await agent.stop();
  logger.info('pharos agent stopped', { agent: agent.id, ...agent.stats() });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`pharos: ${e instanceof AppError || e instanceof TypeError ? e.message : String((e as Error)?.stack ?? e)}\n`);
    process.exit(1);
  },
);
