import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from './postgres.ts';
import { freePort, spawnPharos, waitFor, type PharosProcess } from './process.ts';
import { httpReceiver } from './receivers.ts';
import { tempDir } from './pharos.ts';

/**
 * Real `pharos serve` processes (from source) on one real PostgreSQL, for the lease tests (issue 31):
 * a target whose answer per path the test sets and that records who checked it when (by User-Agent,
 * one per instance), a webhook receiver, and instances started with their own user agent.
 */

export const LEASE_TOKEN = 'lease-admin-token-0123456789abcdef0123';

/** One running instance. */
export interface LeaseInstance {
  name: string;
  proc: PharosProcess;
  url: string;
  id: string;
}

/** A check the target saw: path, time (ms), and the instance (its user agent's suffix). */
export interface Hit {
  path: string;
  at: number;
  by: string;
}

/** Calls the API of `base` with the admin token (JSON in and out). */
export const leaseApi = (base: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(base + path, {
    ...init,
    headers: { Authorization: `Bearer ${LEASE_TOKEN}`, ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    signal: AbortSignal.timeout(10_000),
  });

/** `GET /v1/cluster` as instance `i` sees it. */
export const clusterOf = async (i: LeaseInstance) => (await (await leaseApi(i.url, '/v1/cluster')).json()) as { self: string; leader: string | null };

/** The outages of the whole database (`GET /v2/outages`, newest first), as `i` reads them. */
export const outagesOf = async (i: LeaseInstance) =>
  ((await (await leaseApi(i.url, '/v2/outages')).json()) as { outages: Array<{ uuid: string; isResolved: boolean; monitor: { uuid: string } | null }> }).outages;

/**
 * Starts PostgreSQL, a target, a webhook receiver and a config; `start(name)` spawns an instance.
 * Everything is torn down by the returned `cleanup`.
 */
export async function leaseCluster(label: string) {
  const cleanups: Array<() => Promise<void> | void> = [];
  const pgsql: TestPostgres = await startPostgres(label);
  cleanups.push(() => pgsql.cleanup());
  const answers = new Map<string, number>();
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.push({ path, at: Date.now(), by: String(req.headers['user-agent'] ?? '').split(' ').at(-1) ?? '' });
    req.resume();
    res.statusCode = answers.get(path) ?? 200;
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hooks = await httpReceiver();
  cleanups.push(() => hooks.close());
  const dir = tempDir(`pharos-${label}-`);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));

  const start = async (name: string): Promise<LeaseInstance> => {
    const config = join(dir, `${name}.yaml`);
    // JSON is YAML. One confirming check, so a state change follows the target within one period.
    writeFileSync(
      config,
      JSON.stringify({
        log_level: 'info',
        probe: { confirmation_checks: 1, user_agent: `pharos-test ${name}` },
        alerting: { retry_base_seconds: 2, retry_max_seconds: 2, max_attempts: 100 },
        channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
        escalation_policies: [{ uuid: 'ep_hook', name: 'Hook', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
      }),
    );
    const port = await freePort();
    const proc = await spawnPharos({ PHAROS_CONFIG: config, PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_DATA_DIR: join(dir, `data-${name}`), PHAROS_DATABASE_URL: pgsql.url, PHAROS_ADMIN_TOKEN: LEASE_TOKEN });
    cleanups.push(() => {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
      proc.child.kill('SIGCONT');
      proc.child.kill('SIGKILL');
    });
    const url = `http://127.0.0.1:${port}`;
    const id = await waitFor(`${name} to join the cluster`, async () => {
      const res = await leaseApi(url, '/v1/cluster');
      return res.ok ? ((await res.json()) as { self: string }).self : undefined;
    });
    return { name, proc, url, id };
  };

  /** Alerts delivered (2xx) by event and outage uuid: `outage.alert:out_…` → count. */
  const deliveries = () => {
    const n = new Map<string, number>();
    for (const r of hooks.received) {
      if (r.status >= 300) continue;
      const p = JSON.parse(r.body) as { event: string; outage?: { uuid: string } };
      const key = `${p.event}:${p.outage?.uuid ?? ''}`;
      n.set(key, (n.get(key) ?? 0) + 1);
    }
    return n;
  };

  return {
    pgsql,
    target,
    answers,
    hits,
    hooks,
    start,
    deliveries,
    async cleanup() {
      while (cleanups.length) await cleanups.pop()!();
    },
  };
}
