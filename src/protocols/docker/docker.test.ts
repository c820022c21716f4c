import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createProbes } from '../../engine/probes/index.ts';
import { startTestPharos, tempDir, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A local fake of the Docker Engine API on a unix socket in a temp dir (no daemon on CI): it answers
// `GET /containers/{id}/json` in the documented ContainerInspectResponse shape (State.Status,
// Running, ExitCode, Health.Status, Health.Log) and Docker's 404 `{"message": "No such container: x"}`.
type State = { Status: string; Running: boolean; Paused: boolean; Restarting: boolean; ExitCode: number; Error: string; Health?: { Status: string; FailingStreak: number; Log: Array<{ ExitCode: number; Output: string }> } };
const containers = new Map<string, State>();
const running = (): State => ({ Status: 'running', Running: true, Paused: false, Restarting: false, ExitCode: 0, Error: '' });
const requests: string[] = [];
let server: Server;
let sock = '';
before(async () => {
  sock = join(tempDir('pharos-docker-'), 'docker.sock');
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const m = /^\/containers\/([^/]+)\/json$/.exec(req.url ?? '');
    const name = m ? decodeURIComponent(m[1]!) : '';
    const state = containers.get(name);
    res.setHeader('content-type', 'application/json');
    res.setHeader('api-version', '1.47');
    if (!m || !state) {
      res.statusCode = 404;
      res.end(JSON.stringify({ message: `No such container: ${name}` }));
      return;
    }
    res.end(JSON.stringify({ Id: `${name}0123456789abcdef`, Name: `/${name}`, State: state, Config: { Image: 'nginx:1.27' } }));
  });
  await new Promise<void>((r) => server.listen(sock, r));
  containers.set('web', running());
});
after(() => server?.close());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.docker.close());
const dockerSpec = (docker_container = 'web', url = `unix://${sock}`) => specOf({ url, protocol: 'docker', timeoutSeconds: 3, docker_container });

probeContract('docker', () => probes.docker, { pass: async () => dockerSpec(), fail: async () => dockerSpec('gone') });

describe('docker probe', () => {
  test('running passes; exited, paused, unhealthy and missing containers fail with the daemon\'s words', async () => {
    assert.deepEqual(pick(await probes.docker.check(dockerSpec())), { ok: true, statusCode: 200, reason: null });
    assert.equal(requests.at(-1), 'GET /containers/web/json');
    containers.set('db', { ...running(), Status: 'exited', Running: false, ExitCode: 137 });
    assert.deepEqual(pick(await probes.docker.check(dockerSpec('db'))), { ok: false, statusCode: 200, reason: 'container exited (137)' });
    containers.set('db', { ...running(), Status: 'paused', Paused: true });
    assert.equal((await probes.docker.check(dockerSpec('db'))).reason, 'container paused');
    containers.set('db', { ...running(), Health: { Status: 'unhealthy', FailingStreak: 3, Log: [{ ExitCode: 1, Output: 'curl: (7) Failed to connect to localhost port 80\n' }] } });
    assert.equal((await probes.docker.check(dockerSpec('db'))).reason, 'container unhealthy: curl: (7) Failed to connect to localhost port 80');
    containers.set('db', { ...running(), Health: { Status: 'starting', FailingStreak: 0, Log: [] } });
    assert.equal((await probes.docker.check(dockerSpec('db'))).ok, true, 'a health check still starting counts as up');
    assert.deepEqual(pick(await probes.docker.check(dockerSpec('gone'))), { ok: false, statusCode: 404, reason: 'No such container: gone' });
    assert.equal((await probes.docker.check(dockerSpec('web', `unix://${sock}.missing`))).reason, `No socket at ${sock}.missing`);
  });
  test('a TCP endpoint (tcp:// is plain HTTP, as DOCKER_HOST means it) answers the same request', async () => {
    const tcp = createServer((req, res) => res.end(JSON.stringify({ State: { ...running(), Health: { Status: 'healthy', Log: [] } } })));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    try {
      const port = (tcp.address() as { port: number }).port;
      assert.deepEqual(pick(await probes.docker.check(dockerSpec('web', `tcp://127.0.0.1:${port}`))), { ok: true, statusCode: 200, reason: null });
    } finally {
      tcp.close();
    }
  });
});

describe('docker monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with "container exited (137)", recovery; the container is required', async () => {
    const missing = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: `unix://${sock}`, protocol: 'docker' } });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { message: string }).message, /^docker_container: /);
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'ftp://host', protocol: 'docker', docker_container: 'web' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /^url: must be the Docker Engine API/);
    containers.set('app', running());
    const created = await upDownRecover(p, { name: 'App container', url: `unix://${sock}`, protocol: 'docker', docker_container: 'app', timeout: 3 }, {
      breakIt: () => void containers.set('app', { ...running(), Status: 'exited', Running: false, ExitCode: 137 }),
      reason: 'container exited (137)',
      fixIt: () => void containers.set('app', running()),
    });
    assert.equal(created.docker_container, 'app');
    const doc = (await (await p.api('/openapi.json')).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    assert.ok(JSON.stringify(doc).includes('docker_container'), 'the OpenAPI document lists docker_container');
  });
});
