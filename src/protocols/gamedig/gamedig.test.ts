import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createProbes } from '../../engine/probes/index.ts';
import { startA2sServer, type A2sServer } from '../../../test/support/a2s.ts';
import { setupAdmin } from '../../../test/support/console.ts';
import { freePort } from '../../../test/support/daemons.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { createThroughForm } from '../../../test/support/protocol-form.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A local fake of a Source-engine server's query port (test/support/a2s.ts: Valve's A2S_INFO over
// UDP), asked as gamedig's `counterstrike2` game (the `valve` protocol).
let server: A2sServer;
before(async () => (server = await startA2sServer()));
after(() => server?.stop());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.gamedig.close());
const gameSpec = (over: Record<string, unknown> = {}) => specOf({ url: '127.0.0.1', protocol: 'gamedig', port: server.port, timeoutSeconds: 1, gamedig_game: 'counterstrike2', ...over });

probeContract('gamedig', () => probes.gamedig, { pass: async () => gameSpec(), fail: async () => gameSpec({ gamedig_game: 'no-such-game' }) });

describe('gamedig probe', () => {
  test('a Source server answers A2S_INFO; silence, an unknown game and a closed TCP port are named', async () => {
    assert.deepEqual(pick(await probes.gamedig.check(gameSpec())), { ok: true, statusCode: 0, reason: null });
    assert.equal((await probes.gamedig.check(gameSpec({ gamedig_game: 'protocol-valve' }))).ok, true, 'a protocol by name');
    assert.equal((await probes.gamedig.check(gameSpec({ gamedig_game: 'no-such-game' }))).reason, 'unknown game "no-such-game" (not in gamedig\'s games list)');
    assert.equal((await probes.gamedig.check(gameSpec({ gamedig_game: 'protocol-minecraftvanilla', port: await freePort() }))).reason, 'Connection refused', 'Minecraft Java status ping is TCP');
    server.state.silent = true;
    try {
      assert.equal((await probes.gamedig.check(gameSpec())).reason, 'no answer within 1 s');
    } finally {
      server.state.silent = false;
    }
  });
});

describe('gamedig monitor over the API and the console form', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down when the server stops answering, recovery; the game is required; OpenAPI', async () => {
    const created = await upDownRecover(p, { name: 'CS2', url: '127.0.0.1', port: server.port, protocol: 'gamedig', gamedig_game: 'counterstrike2', timeout: 1 }, {
      breakIt: () => void (server.state.silent = true),
      reason: 'no answer within 1 s',
      fixIt: () => void (server.state.silent = false),
    });
    assert.deepEqual([created.gamedig_game, created.gamedig_given_port_only], ['counterstrike2', true]);
    const missing = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: '127.0.0.1', protocol: 'gamedig' } });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { message: string }).message, /^gamedig_game: is required/);
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: '127.0.0.1', protocol: 'gamedig', gamedig_game: 'Counter Strike' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /^gamedig_game: must be a gamedig game id/);
    const doc = JSON.stringify(await (await p.api('/openapi.json')).json());
    assert.ok(doc.includes('gamedig_given_port_only'), 'the OpenAPI document lists gamedig_given_port_only');
  });
  test('made through the console form (JavaScript off): checked and up', async () => {
    const admin = await setupAdmin(p);
    const { page } = await createThroughForm(p, admin, 'gamedig', { name: 'Source server', url: '127.0.0.1', port: String(server.port) }, { gamedig_game: 'counterstrike2', gamedig_given_port_only: 'on' });
    assert.match(page, /id="monitor-status">up</);
    assert.match(page, /<dt>Game<\/dt><dd>counterstrike2<\/dd>/);
  });
});
