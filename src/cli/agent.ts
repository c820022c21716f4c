import { hostname } from 'node:os';
import { ProbeAgent } from '../agent/agent.ts';
import { DEFAULT_USER_AGENT } from '../domain/probe.ts';
import { REGIONS, type Region } from '../domain/regions.ts';
import { systemClock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import { createLogger } from '../lib/logger.ts';
import { PHAROS_VERSION } from '../version.ts';
import { parse, type CliCommand } from './command.ts';
import { enableOptimizer } from '../lib/optimizer.ts';

/**
 * `pharos agent`: a remote probe (issue #7) until SIGTERM/SIGINT, then a last push of what is buffered.
 * Needs no config file and no database.
 */
export const command: CliCommand = {
  help: `Usage: pharos agent --server URL --region R [--token T] [--name N] [--source-address A] [--buffer N]
Runs a remote probe for region R: polls the main at URL for its checks and pushes the results.
--token           a probe-scope token (pharos token create --scope probe), else $PHAROS_AGENT_TOKEN
--name            the name GET /v1/probes shows (default: the host name)
--source-address  the local address checks leave from (multi-homed hosts)
--buffer          results kept while the main is unreachable (default 100000, at least 100)
Regions: ${REGIONS.join(', ')}.
No config file, no database, no open port; SIGTERM pushes what is buffered and exits 0.`,
  async run(args, env) {
    const { values } = parse(args, {
      server: { type: 'string' },
      token: { type: 'string' },
      region: { type: 'string' },
      name: { type: 'string' },
      'source-address': { type: 'string' },
      buffer: { type: 'string' },
    });
    const token = values.token ?? env.PHAROS_AGENT_TOKEN;
    if (!values.server || !/^https?:\/\//.test(values.server)) throw new AppError(400, 'cli.invalid', "--server: must be the main's URL, e.g. https://pharos.example.com");
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
    enableOptimizer(); // the binary starts without TurboFan (src/lib/optimizer.ts)
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
  },
};
