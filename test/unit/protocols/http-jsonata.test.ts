import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MonitorBody } from '../../../src/domain/monitor.ts';
import { jsonataSyntaxError, prepareAssertions } from '../../../src/protocols/http/index.ts';

// Issue 38 point 1: `jsonata` loads on the first json_query assertion, not at start. Its syntax check
// sits in the monitor body's schema: an asynchronous parse (the API's) waits for the package; a
// synchronous one (the console's form, MCP's tools) runs once prepareAssertions has loaded it. One
// process, in order: nothing has loaded jsonata when this file starts.
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/jsonata/'));
const body = (path: string) => ({ name: 'q', url: 'https://example.com/', assertions: [{ source: 'json_query', path, op: 'equals', value: 'x' }] });
const issues = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) => (r.success ? [] : r.error!.issues.map((i) => [i.path.join('.'), i.message]));

test('before jsonata is loaded: bodies without json_query parse synchronously and load nothing; a synchronous parse of one with an expression refuses to run', async () => {
  assert.equal(loaded(), false, 'nothing loaded jsonata before this test');
  const plain = { name: 'p', url: 'https://example.com/', assertions: [{ source: 'body', op: 'contains', value: 'ok' }] };
  assert.equal(MonitorBody.safeParse(plain).success, true);
  await prepareAssertions(plain);
  await prepareAssertions({ name: 'n' });
  await prepareAssertions(null);
  assert.equal(loaded(), false, 'no json_query: jsonata stays unloaded');
  assert.throws(() => MonitorBody.safeParse(body('services[status=')), /Promise|async/i);
  assert.throws(() => jsonataSyntaxError('$'), /not loaded/);
});

test('an asynchronous parse (the API) loads jsonata and names the field, as a synchronous one does once it is loaded', async () => {
  const bad = await MonitorBody.safeParseAsync(body('services[status='));
  assert.equal(loaded(), true);
  const [[field, message]] = issues(bad) as [[string, string]];
  assert.equal(field, 'assertions.0.path');
  assert.match(message, /^is not a valid JSONata expression: /);
  assert.deepEqual(issues(MonitorBody.safeParse(body('services[status='))), issues(bad));
  assert.equal((await MonitorBody.safeParseAsync(body('$count(services[status="up"])'))).success, true);
  assert.equal(MonitorBody.safeParse(body('$count(services[status="up"])')).success, true);
  assert.equal(jsonataSyntaxError('$'), null);
});
