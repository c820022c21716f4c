import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ONCE_IN_SQLITE_RUN, tempDir, type JsonResponse } from '../support/pharos.ts';
import { freePort, spawnPharos, waitFor, type PharosProcess } from '../support/process.ts';

// Issue 38 point 1: a configuration loads what it uses when it uses it. A real `pharos serve` on
// SQLite with the module log preload (test/support/module-log.ts: every module URL the process and
// its threads load, through Node's own module hooks) is read after start, after an HTTP monitor's
// check, and after a gRPC monitor's check.
const TOKEN = 'lazy-modules-test-token-0123456789';
const dataDir = tempDir();
const log = join(dataDir, 'modules.log');
const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Libraries of what this configuration does not use, by what they serve: none may load. */
const UNUSED: Record<string, RegExp> = {
  'PostgreSQL (pg)': /\/node_modules\/(pg|pg-[\w-]+|pgpass|postgres-[\w-]+)\//,
  'SSO: OIDC (openid-client)': /\/node_modules\/(openid-client|oauth4webapi)\//,
  'SSO: SAML (@node-saml)': /\/node_modules\/(@node-saml\/|xml-crypto\/|xml-encryption\/|xml2js\/)/,
  'mail (nodemailer)': /\/node_modules\/nodemailer\//,
  'MCP (@modelcontextprotocol/sdk)': /\/node_modules\/@modelcontextprotocol\//,
  'MQTT (mqtt)': /\/node_modules\/mqtt\//,
  'MySQL (mysql2)': /\/node_modules\/mysql2\//,
  'Redis (redis)': /\/node_modules\/(redis|@redis\/[\w-]+)\//,
  'ACME (acme-client)': /\/node_modules\/(acme-client|axios|node-forge|@peculiar\/)/,
  // src/lib/undici.ts takes undici's dispatchers alone: its index also loads fetch, WebSocket, EventSource, cache stores and mocks.
  "undici's index, fetch, WebSocket, cache and mocks": /\/node_modules\/undici\/(index\.js|lib\/(web|mock|cache)\/)/,
};
const GRPC = /\/node_modules\/@grpc\/grpc-js\//;
/**
 * Libraries of features this configuration has but has not used yet: each loads on first use (SMS
 * subscriptions, JSONata assertions, two-factor sign-in, on-call calendars, charts, …), never at start;
 * of rate-limiter-flexible only the memory limiter's files load (its index loads every store adapter).
 */
const ON_FIRST_USE: Record<string, RegExp> = {
  'phone numbers (libphonenumber-js)': /\/node_modules\/libphonenumber-js\//,
  'TOTP (otpauth)': /\/node_modules\/otpauth\//,
  'iCalendar (ical-generator)': /\/node_modules\/ical-generator\//,
  'time zones (luxon: src/domain/on-call/zone.ts reads Intl as luxon does)': /\/node_modules\/luxon\//,
  'charts (d3-*: status pages draw without it, the console loads it on a monitor page)': /\/node_modules\/d3-[\w-]+\//,
  'JSONata (jsonata)': /\/node_modules\/jsonata\//,
  'rate limiter stores (rate-limiter-flexible index)': /\/node_modules\/rate-limiter-flexible\/(index\.js|lib\/RateLimiter(Redis|Postgres|Mongo|MySQL|Cluster)\.js)/,
};

/** The module URLs loaded so far. */
const loaded = (): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean);

/** Asserts that no library of `unused` is among the loaded modules, naming the first one found. */
function assertNoneLoaded(when: string, unused: Record<string, RegExp>): void {
  const urls = loaded();
  for (const [what, re] of Object.entries(unused)) {
    const hit = urls.find((u) => re.test(u));
    assert.equal(hit, undefined, `${when}: ${what} was loaded (${hit})`);
  }
}

test('SQLite with HTTP monitors loads no PostgreSQL, gRPC, SSO, mail, MCP, MQTT, MySQL or Redis library; a gRPC check loads gRPC only', { timeout: 120_000, skip: ONCE_IN_SQLITE_RUN }, async () => {
  let httpHits = 0;
  const target = createServer((_req, res) => (httpHits++, res.end('ok')));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => target.close(r)));
  const targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/`;
  const port = await freePort();
  const configFile = join(dataDir, 'config.yaml');
  writeFileSync(configFile, 'probe:\n  recheck_interval_seconds: 2\n');
  writeFileSync(log, '');
  const preload = fileURLToPath(new URL('../support/module-log.ts', import.meta.url));
  const proc: PharosProcess = await spawnPharos({
    PHAROS_LISTEN: `127.0.0.1:${port}`,
    PHAROS_DATA_DIR: dataDir,
    PHAROS_ADMIN_TOKEN: TOKEN,
    PHAROS_CONFIG: configFile,
    PHAROS_TEST_MODULE_LOG: log,
    // NODE_OPTIONS, so the store's worker threads record their modules too.
    NODE_OPTIONS: `--import=${preload}`,
  });
  cleanups.push(() => proc.child.kill('SIGKILL'));
  const api = (path: string, init: RequestInit = {}) =>
    fetch(proc.url + path, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...init.headers } }) as Promise<JsonResponse>;

  // The preload works: the process's own entry point is in the log.
  assert.ok(loaded().some((u) => u.endsWith('/src/main.ts')), 'the module log names src/main.ts');
  assertNoneLoaded('after start', { ...UNUSED, ...ON_FIRST_USE, 'gRPC (@grpc/grpc-js)': GRPC });
  // The REST API and the console are built at their first request, not at start (issue 38 point 1).
  const ours = (file: string) => loaded().some((u) => u.endsWith(`/src/http/${file}`));
  for (const file of ['api-app.ts', 'api/monitors.ts', 'console/router.ts', 'console/routes-sso.ts']) assert.equal(ours(file), false, `src/http/${file} was loaded at start`);

  const http = await (await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'web', url: targetUrl, check_frequency: 10 }) })).json();
  assert.ok(http.uuid, JSON.stringify(http));
  assert.ok(ours('api-app.ts') && ours('api/monitors.ts'), 'the first API request built the API');
  assert.equal(ours('console/router.ts'), false, 'an API request does not build the console');
  await waitFor('the HTTP monitor to be checked', async () => httpHits > 0);
  assert.ok(loaded().some((u) => u.includes('/src/protocols/http/probe.ts')), `the HTTP probe was loaded for its check: ${loaded().filter((u) => u.includes('/protocols/')).join(' ')}`);
  assertNoneLoaded('after an HTTP check', { ...UNUSED, ...ON_FIRST_USE, 'gRPC (@grpc/grpc-js)': GRPC });

  // The first json_query assertion loads jsonata, for the API's (asynchronous) check of its syntax.
  const query = await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'query', url: targetUrl, paused: true, assertions: [{ source: 'json_query', path: 'services[status=', op: 'equals', value: 'x' }] }) });
  const refused = JSON.stringify(await query.json());
  assert.equal(query.status, 400, refused);
  assert.ok(refused.includes('assertions.0.path') && refused.includes('is not a valid JSONata expression'), refused);
  assert.ok(loaded().some((u) => ON_FIRST_USE['JSONata (jsonata)']!.test(u)), 'a json_query assertion loaded jsonata');

  // A gRPC monitor on a TCP server that hangs up: its check (down) needs the gRPC library, and only it.
  let grpcConnections = 0;
  const rpcTarget = createTcpServer((socket) => (grpcConnections++, socket.destroy()));
  await new Promise<void>((r) => rpcTarget.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => rpcTarget.close(r)));
  const rpcPort = (rpcTarget.address() as { port: number }).port;
  const grpc = await (await api('/v1/monitors', { method: 'POST', body: JSON.stringify({ name: 'rpc', url: '127.0.0.1', port: rpcPort, protocol: 'grpc', check_frequency: 10, timeout: 2 }) })).json();
  assert.ok(grpc.uuid, JSON.stringify(grpc));
  await waitFor('the gRPC monitor to be checked', async () => grpcConnections > 0);
  assert.ok(loaded().some((u) => GRPC.test(u)), 'a gRPC check loaded @grpc/grpc-js');
  assertNoneLoaded('after a gRPC check', UNUSED);
});
