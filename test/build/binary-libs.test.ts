import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tempDir, type TestPharos } from '../support/pharos.ts';
import { consoleClient } from '../support/console.ts';
import { prepareBinary, releaseBuild, type BinaryUnderTest } from '../support/binary.ts';
import { freePort, waitFor } from '../support/process.ts';

// Issue 38: inside the single executable the libraries `pharos serve` does not load at start are
// bundled apart (src/build/bundle.ts) in the binary's asset pack and compiled on first use. Each
// one is used here, from a binary in an empty folder, as a user's configuration would: a monitor
// of each protocol whose driver is bundled apart checks a loopback server that hangs up (TCP) or
// never answers (UDP) — the driver loaded and ran when the server saw it and the check failed for
// the network's reason, not a loader's — and the MCP endpoint (its SDK, sharing the main bundle's
// zod), a status page badge (badge-maker), a json_query assertion's syntax check (jsonata), an SMS
// subscription's number check (libphonenumber-js), a console monitor page (d3's chart functions),
// TOTP set-up (otpauth, qrcode) and an on-call iCal feed (ical-generator) answer.
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

test('the libraries bundled apart load from the pack inside the binary: drivers of grpc, mysql, redis, mongodb, mqtt, postgres, snmp, gamedig checks, the MCP SDK, badge-maker, jsonata, libphonenumber-js, d3, otpauth, qrcode, ical-generator', { timeout: 120_000 }, async () => {
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
  // SMS subscriptions of GB numbers (a Twilio channel that is never reached: no number here gets a text).
  const sms = `channels:\n  - {name: texts, type: twilio, account_sid: AC${'cd'.repeat(16)}, auth_token: tw-token, from: '+15550001111', to: ['+15550009999'], api_url: 'http://127.0.0.1:9'}\nstatus_pages:\n  subscriptions:\n    sms_countries: [GB]\n`;
  writeFileSync(config, `probe:\n  recheck_interval_seconds: 2\n${sms}`);
  const env = b.env({ PHAROS_LISTEN: `127.0.0.1:${port}`, PHAROS_ADMIN_TOKEN: TOKEN, PHAROS_DATA_DIR: join(dir, 'data'), PHAROS_CONFIG: config });
  // A console admin (for the monitor page, TOTP and an on-call schedule), made before the server starts.
  const PASSWORD = 'binary libs password 1';
  const made = spawnSync(b.bin, ['user', 'create', '--email', 'ada@example.com', '--role', 'admin', '--name', 'Ada', '--password-stdin'], { cwd: dir, env, input: `${PASSWORD}\n`, encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const child = spawn(b.bin, ['serve'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const page = await api('/v2/statuspages', { method: 'POST', body: JSON.stringify({ name: 'Libs', subdomain: 'libs', sections: [], subscribe: { enabled: true, sms: true } }) });
    assert.equal(page.status, 201, await page.clone().text());
    const badge = await fetch(`${url}/status/libs/badge.svg`);
    assert.equal(badge.status, 200);
    assert.match(await badge.text(), /^<svg[\s\S]*status/);

    // jsonata: a json_query assertion's expression is parsed (a broken one is refused with the parser's reason).
    const query = (path: string) => api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'query', url: 'http://127.0.0.1:9/', paused: true, assertions: [{ source: 'json_query', path, op: 'equals', value: 'x' }] }) });
    const broken = await query('services[status=');
    assert.equal(broken.status, 400);
    assert.match(await broken.text(), /assertions\.0\.path[\s\S]*is not a valid JSONata expression/);
    const good = await query('$count(services[status="up"])');
    assert.equal(good.status, 201, await good.clone().text());

    // libphonenumber-js: +44 7911 is Guernsey's, not a GB number by GB's numbering plan.
    const guernsey = await fetch(`${url}/status/libs/subscribe`, { method: 'POST', body: new URLSearchParams({ channel: 'sms', target: '+447911123456' }), redirect: 'manual' });
    assert.equal(guernsey.status, 400);
    assert.match(await guernsey.text(), /must be a mobile number of an allowed country \(GB\)/);

    // The console: a monitor page (its chart's d3 functions), TOTP set-up (otpauth, qrcode).
    const ada = consoleClient({ url } as TestPharos);
    assert.equal((await ada.post('/login', { email: 'ada@example.com', password: PASSWORD }, { csrf: null })).status, 303);
    await ada.get('/');
    const monitors = (await (await api('/v1/monitors')).json()) as Array<{ uuid: string; name: string }>;
    const monitorPage = await ada.get(`/monitors/${monitors.find((m) => m.name === 'grpc')!.uuid}?range=1h`);
    assert.equal(monitorPage.status, 200, monitorPage.html.slice(0, 500));
    assert.match(monitorPage.html, /id="period"/);
    const totp = await ada.post('/settings/totp/start', {});
    assert.equal(totp.status, 200, totp.html.slice(0, 500));
    assert.match(totp.html, /<div class="qr"><svg[\s\S]*name="secret" value="[A-Z2-7]{32}"/);

    // ical-generator: an on-call schedule's feed.
    const me = (await (await api('/v1/team-members')).json()) as Array<{ uuid: string; email: string }>;
    const adaUuid = me.find((m) => m.email === 'ada@example.com')!.uuid;
    const sched = await api('/v1/on-call-schedules', { method: 'POST', body: JSON.stringify({ name: 'Primary', time_zone: 'Europe/Berlin', layers: [{ name: 'Weekly', users: [adaUuid], rotation: { type: 'weekly', handoff_time: '09:00', start_date: '2026-06-01' } }] }) });
    assert.equal(sched.status, 201, await sched.clone().text());
    const feed = await api(`/v1/on-call-schedules/${((await sched.json()) as { uuid: string }).uuid}/ical-feed`, { method: 'POST' });
    assert.equal(feed.status, 201, await feed.clone().text());
    const ics = await fetch(url + new URL(((await feed.json()) as { url: string }).url).pathname);
    assert.equal(ics.status, 200, `${await ics.clone().text()} ${stderr}`);
    assert.match(await ics.text(), /^BEGIN:VCALENDAR[\s\S]*BEGIN:VEVENT[\s\S]*SUMMARY:On call: Ada/);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  assert.doesNotMatch(stderr, LOADER_ERROR);
});
