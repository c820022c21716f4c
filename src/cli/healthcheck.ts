import { loadConfig } from '../config/load.ts';
import { parseListen } from '../pharos.ts';
import { parse, type CliCommand } from './command.ts';

/** How long `pharos healthcheck` waits for /healthz before it calls the server unhealthy (ms). */
const TIMEOUT_MS = 5_000;

/**
 * `pharos healthcheck`: GET /healthz of the server this configuration describes (`listen`, env
 * PHAROS_LISTEN; a wildcard host is asked on loopback); exit 0 on a 2xx answer, 1 otherwise. The
 * container image's HEALTHCHECK (build.sh --image, docs/operations.md "Docker / Compose"): the image
 * has no curl or wget, and /healthz answers from memory, never waiting on the database.
 */
export const command: CliCommand = {
  help: `Usage: pharos healthcheck [--config FILE] [--url URL]
Asks GET /healthz of the local server (the configured listen address, env PHAROS_LISTEN; 0.0.0.0 and
:: are asked on 127.0.0.1 and ::1) or of URL, and exits 0 on a 2xx answer, 1 otherwise (no answer
within 5 s, or 503 when the instance cannot serve). Prints the answer on one line. For container
HEALTHCHECKs (the image has no curl).`,
  async run(args, env) {
    const { values } = parse(args, { url: { type: 'string' } });
    const url = values.url ?? localHealthUrl(loadConfig(env, values.config, { unsetVariables: 'placeholder' }).listen);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
      const body = (await res.text()).replace(/\s+/g, ' ').slice(0, 200);
      process.stdout.write(`${url}: ${res.status} ${body}\n`);
      return res.ok ? 0 : 1;
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause?.message;
      process.stdout.write(`${url}: no answer: ${(e as Error).message}${cause ? ` (${cause})` : ''}\n`);
      return 1;
    }
  },
};

/** The /healthz URL of a server listening on `listen` (`host:port`), wildcard hosts mapped to loopback. */
export function localHealthUrl(listen: string): string {
  const { host, port } = parseListen(listen);
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}/healthz`;
}
