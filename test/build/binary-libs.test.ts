import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../support/pharos.ts';
import { prepareBinary, releaseBuild, type BinaryUnderTest } from '../support/binary.ts';
import { freePort, waitFor } from '../support/process.ts';

// Issue 38: inside the single executable the libraries `pharos serve` does not load at start are
// bundled apart (src/build/bundle.ts) in the binary's asset pack and compiled on first use. Each
// one is used here, from a binary in an empty folder, as a user's configuration would: a monitor
// of each protocol whose driver is bundled apart checks a loopback server that hangs up (TCP) or
// never answers (UDP) — the driver loaded and ran when the server saw it and the check failed for
// the network's reason, not a loader's — and the MCP endpoint (its SDK, sharing the main bundle's
// zod) and a status page badge (badge-maker) answer.
const dir = tempDir('pharos-binary-libs-');
const TOKEN = 'binary-libs-token-0123456789';
let b: BinaryUnderTest;
const cleanups: Array<() => unknown> = [];

before(async () => {
  b = prepareBinary(dir, await releaseBuild());
  chmodSync(dir, 0o755);
});
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

/** A TCP server on loopback that counts connections and hangs up on each. */
async function hangUp(): Promise<{ port: number; seen: () => number }> {
  let n = 0;
  const server = createServer((s) => (n++, s.destroy()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as { port: number }).port, seen: () => n };
}

/** A UDP socket on loopback that counts datagrams and never answers. */
async function silentUdp(): Promise<{ port: number; seen: () => number }> {
  let n = 0;
  const socket = createSocket('udp4', () => n++);
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  cleanups.push(() => socket.close());
  return { port: socket.address().port, seen: () => n };
}

/** Library load failures as a check, the MCP endpoint or a page would report them. */
const LOADER_ERROR = /cannot find module|pharos-lib|pharos-core|main bundle holds no|exports no|carries no file|is not a (function|constructor)/i;

test('the libraries bundled apart load from the pack inside the binary: drivers of grpc, mysql, redis, mongodb, mqtt, postgres, snmp, gamedig checks, the MCP SDK, badge-maker', { timeout: 120_000 }, async () => {
  const tcp = { grpc: await hangUp(), mysql: await hangUp(), redis: await hangUp(), mongodb: await hangUp(), mqtt: await hangUp(), postgres: await hangUp() };
  const udp = { snmp: await silentUdp(), gamedig: await silentUdp() };
  const urls: Record<string, string> = {
    grpc: '127.0.0.1', mysql: `mysql://u:p@127.0.0.1:${tcp.mysql.port}/db`, redis: `redis://127.0.0.1:${tcp.redis.port}`,
    mongodb: `mongodb://127.0.0.1:${tcp.mongodb.port}/db`, mqtt: `mqtt://127.0.0.1:${tcp.mqtt.port}`, postgres: `postgres://u:p@127.0.0.1:${tcp.postgres.port}/db`,
    snmp: '127.0.0.1', gamedig: '127.0.0.1',
  };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = join(dir, 'config.yaml');
  writeFileSync(config, 'probe:\n  recheck_interval_seconds: 2\n');
  const child = spawn(b.bin, ['serve'], { cwd: dir, env: b.env({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_CONFIG: config }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...init.headers } });
  try {
    await waitFor('the binary to listen', async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 30_000);
    const ports: Record<string, number> = { ...Object.fromEntries(Object.entries(tcp).map(([k, v]) => [k, v.port])), ...Object.fromEntries(Object.entries(udp).map(([k, v]) => [k, v.port])) };
    for (const protocol of Object.keys(urls)) {
      const extra = protocol === 'gamedig' ? { gamedig_game: 'protocol-valve', gamedig_given_port_only: true } : {};
      const created = await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: protocol, url: urls[protocol], port: ports[protocol], protocol, check_frequency: 10, timeout: 2, ...extra }) });
      assert.equal(created.status, 201, `${protocol}: ${await created.clone().text()}`);
    }
    for (const [protocol, server] of Object.entries({ ...tcp, ...udp })) await waitFor(`the ${protocol} check to reach its server`, async () => server.seen() > 0, 30_000);
    // Each check fails for the network's reason: its outage names it (not a library that did not load).
    let outages: Array<{ monitor: { name: string }; description: string }> = [];
    await waitFor('an outage per monitor', async () => {
      const body = (await (await api('/v2/outages')).json()) as { outages: typeof outages };
      outages = body.outages;
      return Object.keys(urls).every((name) => outages.some((o) => o.monitor.name === name));
    }, 60_000);
    for (const name of Object.keys(urls)) {
      const outage = outages.find((o) => o.monitor.name === name)!;
      assert.doesNotMatch(outage.description, LOADER_ERROR, `${name}: ${outage.description}`);
    }

    // The MCP SDK (zod schemas from the main bundle): initialize, then a tool call refused by a schema.
    const init = await api('/v1/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }) });
    assert.equal(init.status, 200);
    assert.equal(((await init.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name, 'pharos');
    const call = (await (await api('/v1/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_monitor', arguments: { name: 'x' } } }) })).json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    assert.equal(call.result.isError, true);
    assert.match(call.result.content[0]!.text, /url/, 'the zod schema named the missing field');
    assert.doesNotMatch(call.result.content[0]!.text, LOADER_ERROR);

    // badge-maker: a status page's badge.
    const page = await api('/v2/statuspages', { method: 'POST', body: JSON.stringify({ name: 'Libs', subdomain: 'libs', sections: [] }) });
    assert.equal(page.status, 201, await page.clone().text());
    const badge = await fetch(`${url}/status/libs/badge.svg`);
    assert.equal(badge.status, 200);
    assert.match(await badge.text(), /^<svg[\s\S]*status/);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  assert.doesNotMatch(stderr, LOADER_ERROR);
});
