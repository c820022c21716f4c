import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createProbes } from '../../engine/probes/index.ts';
import { setupAdmin } from '../../../test/support/console.ts';
import { freePort } from '../../../test/support/daemons.ts';
import { startMongoFake, type MongoFake } from '../../../test/support/mongo-wire.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { createThroughForm } from '../../../test/support/protocol-form.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// Debian has no MongoDB server: a local fake speaking the wire protocol (test/support/mongo-wire.ts:
// the driver's OP_QUERY handshake, then OP_MSG commands; every login fails as a wrong password does).
let fake: MongoFake;
let url = '';
before(async () => {
  fake = await startMongoFake();
  url = `mongodb://127.0.0.1:${fake.port}/app`;
});
after(() => fake?.stop());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.mongodb.close());
const mongoSpec = (over: Record<string, unknown> = {}) => specOf({ url, protocol: 'mongodb', timeoutSeconds: 2, ...over });

probeContract('mongodb', () => probes.mongodb, { pass: async () => mongoSpec(), fail: async () => mongoSpec({ mongodb_command: '{"nope": 1}' }) });

describe('mongodb probe', () => {
  test('ping; a command and a value of its reply; the server\'s refusals; a closed port', async () => {
    assert.deepEqual(pick(await probes.mongodb.check(mongoSpec())), { ok: true, statusCode: 0, reason: null });
    assert.ok(fake.commands.includes('ping'), 'the default command is ping');
    const status = { mongodb_command: '{"serverStatus": 1}', mongodb_json_path: '$.repl.primary' };
    assert.equal((await probes.mongodb.check(mongoSpec({ ...status, mongodb_expected: 'db1:27017' }))).ok, true);
    assert.equal((await probes.mongodb.check(mongoSpec({ ...status, mongodb_expected: 'db2:27017' }))).reason, '$.repl.primary was "db1:27017", expected "db2:27017"');
    assert.equal((await probes.mongodb.check(mongoSpec({ ...status, mongodb_json_path: '$.repl.arbiter' }))).reason, '$.repl.arbiter matched nothing in the reply');
    assert.equal((await probes.mongodb.check(mongoSpec({ mongodb_command: '{"nope": 1}' }))).reason, "no such command: 'nope'");
    assert.equal((await probes.mongodb.check(mongoSpec({ url: `mongodb://app:wrong@127.0.0.1:${fake.port}/app` }))).reason, 'Authentication failed.');
    assert.equal((await probes.mongodb.check(mongoSpec({ url: `mongodb://127.0.0.1:${await freePort()}/app`, timeoutSeconds: 1 }))).reason, 'Connection refused');
  });
  test('probe.source_address: the server saw the client from the configured address', async () => {
    const via = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await via.mongodb.check(mongoSpec())).ok, true);
    } finally {
      await via.mongodb.close();
    }
    assert.ok(fake.from.includes('127.0.0.3'), fake.from.join(', '));
  });
});

describe('mongodb monitor over the API and the console form', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the server\'s errmsg (auth turned on), recovery; the password is a secret; validation; OpenAPI', async () => {
    const created = await upDownRecover(p, { name: 'Mongo', url, protocol: 'mongodb', mongodb_command: '{"serverStatus": 1}', timeout: 2 }, {
      breakIt: () => void fake.state.authRequired.add('serverStatus'),
      reason: 'command serverStatus requires authentication',
      fixIt: () => void fake.state.authRequired.delete('serverStatus'),
    });
    assert.equal(created.mongodb_command, '{"serverStatus": 1}');
    const secret = await p.api('/v1/monitors', { method: 'POST', json: { name: 'with login', url: `mongodb://monitor:s3cret@127.0.0.1:${fake.port}/app?authSource=admin`, protocol: 'mongodb', paused: true } });
    assert.equal(((await secret.json()) as { url: string }).url, `mongodb://monitor:***@127.0.0.1:${fake.port}/app?authSource=admin`);
    const bad = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url, protocol: 'mongodb', ...body } });
      assert.equal(res.status, 400);
      assert.match(((await res.json()) as { message: string }).message, message);
    };
    await bad({ url: 'http://db' }, /^url: must be a MongoDB connection string/);
    await bad({ mongodb_command: 'ping' }, /^mongodb_command: must be a JSON object/);
    await bad({ mongodb_json_path: 'repl.primary' }, /^mongodb_json_path: must be a JSONPath/);
    await bad({ mongodb_expected: 'x' }, /^mongodb_expected: needs mongodb_json_path/);
    const multi = await p.api('/v1/monitors', { method: 'POST', json: { name: 'rs', url: `mongodb://127.0.0.1:${fake.port},127.0.0.2:${fake.port}/app?replicaSet=rs0`, protocol: 'mongodb', paused: true } });
    assert.equal(multi.status, 201, 'several hosts are one connection string');
    const doc = JSON.stringify(await (await p.api('/openapi.json')).json());
    assert.ok(doc.includes('mongodb_json_path'), 'the OpenAPI document lists mongodb_json_path');
  });
  test('made through the console form (JavaScript off): checked and up', async () => {
    const admin = await setupAdmin(p);
    const { page } = await createThroughForm(p, admin, 'mongodb', { name: 'Mongo form', url }, { mongodb_command: '{"buildInfo": 1}', mongodb_json_path: '$.version', mongodb_expected: '7.0.0' });
    assert.match(page, /id="monitor-status">up</);
    assert.match(page, /<dt>JSON path<\/dt><dd>\$\.version<\/dd>/);
  });
});
