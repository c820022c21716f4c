import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPostgres, startTestPharos, type TestPharos } from '../support/pharos.ts';
import { ManualClock } from '../support/manual-clock.ts';

// Issue 32 point 1: "every change takes effect at once, on every instance of a PostgreSQL cluster".
// Two instances on one real PostgreSQL database: what one instance's API writes, the other's API
// answers with at once (no restart, no message between them: both read the database).

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

test('an integration and a policy written through one instance\'s API are listed by the other at once', { timeout: 60_000 }, async () => {
  const url = await (await sharedPostgres()).createDatabase(`intapi${process.pid}`);
  const clock = new ManualClock();
  const config = { storage: { driver: 'postgres', postgres_url: url } };
  const a: TestPharos = await startTestPharos(config, clock);
  cleanups.push(() => a.cleanup());
  const b: TestPharos = await startTestPharos(config, clock);
  cleanups.push(() => b.cleanup());

  const created = await a.api('/v1/integrations', { method: 'POST', json: { name: 'shared', type: 'ntfy', settings: { topic: 'shared', token: 'tok-SECRET' } } });
  assert.equal(created.status, 201);
  const hook = await created.json();
  const listed = await (await b.api('/v1/integrations')).json();
  assert.deepEqual(listed.map((i: { uuid: string }) => i.uuid), [hook.uuid]);
  assert.equal(listed[0].settings.token, '***');

  // B changes it, keeping the secret A stored (B opens it with the same key): A sees the change.
  const patched = await b.api(`/v1/integrations/${hook.uuid}`, { method: 'PATCH', json: { name: 'shared-2', settings: { token: '***', priority: 5 } } });
  assert.equal(patched.status, 200, await patched.clone().text());
  const onA = await (await a.api(`/v1/integrations/${hook.uuid}`)).json();
  assert.equal(onA.name, 'shared-2');
  assert.equal(onA.settings.priority, 5);
  assert.deepEqual(await a.core.integrations.plaintextSettings(hook.uuid).then((s) => s.token), 'tok-SECRET');

  const policy = await (await b.api('/v1/escalation-policies', { method: 'POST', json: { name: 'Shared', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }] } })).json();
  assert.equal((await (await a.api(`/v1/escalation-policies/${policy.uuid}`)).json()).name, 'Shared');
  const refused = await a.api(`/v1/integrations/${hook.uuid}`, { method: 'DELETE' });
  assert.equal(refused.status, 409, 'A knows B\'s policy uses it');
  assert.equal((await a.api(`/v1/escalation-policies/${policy.uuid}`, { method: 'DELETE' })).status, 200);
  assert.equal((await b.api(`/v1/escalation-policies/${policy.uuid}`)).status, 404);
  assert.equal((await a.api(`/v1/integrations/${hook.uuid}`, { method: 'DELETE' })).status, 200);
  assert.deepEqual(await (await b.api('/v1/integrations')).json(), []);
});
