import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { setupAdmin } from '../support/console.ts';

// Issue 33 point 11: a person resolves a monitor's outage while its check still fails. Before, the
// monitor stayed "down" with no outage for as long as the target failed (no new outage, no alert).
// Now the next failed confirmation opens a new outage; a passing check sets it up (nothing to resolve).
const MIN = 60_000;
let p: TestPharos;
let target: HttpTarget;
before(async () => {
  p = await startTestPharos();
  target = await httpTarget(503);
});
after(async () => {
  await p.cleanup();
  await target.stop();
});

const ongoing = async (monitor: string) => ((await (await p.api('/v2/outages?status=ongoing')).json()).outages as Array<{ uuid: string; monitor?: { uuid: string } | null }>).filter((o) => o.monitor?.uuid === monitor);
/** The console's admin, set up once for the file (the first run of setup creates the only admin). */
let admin: Awaited<ReturnType<typeof setupAdmin>> | undefined;
const adminSession = async () => (admin ??= await setupAdmin(p));
const status = async (monitor: string) => (await (await p.api(`/v1/monitors/${monitor}`)).json()).status as string;

test('resolved by hand while still failing: the next failed confirmation opens a new outage; a pass then sets it up', async () => {
  const mon = (await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Shop', url: `${target.url}/shop`, check_frequency: 60 } })).json()).uuid as string;
  await p.advance(2 * MIN);
  const [first] = await ongoing(mon);
  assert.ok(first, 'the failing check opened an outage');
  assert.equal(await status(mon), 'down');

  const res = await p.api(`/v2/outages/${first.uuid}/resolve`, { method: 'POST', json: { message: 'looked fine to me' } });
  assert.equal(res.status, 200);
  assert.deepEqual(await ongoing(mon), []);

  // What a restart or a take-over reads back (results.reload): down with no open outage still reopens.
  await p.core.results.reload();
  await p.advance(2 * MIN);
  const again = await ongoing(mon);
  assert.equal(again.length, 1, 'the check still fails: a new outage opened at the next failed confirmation');
  assert.notEqual(again[0]!.uuid, first.uuid);
  assert.equal(await status(mon), 'down');

  // The console's resolve control says what will happen; resolved there, then the target recovers:
  // up, and no outage is left open or opened.
  const admin = await adminSession();
  const page = await admin.get(`/outages/${again[0]!.uuid}`);
  assert.match(page.html, /id="resolve-hint"[^>]*>\s*The check still fails: Resolve closes this outage, and a new outage opens at the next failed confirmation/);
  const act = await admin.post(`/outages/${again[0]!.uuid}/act`, { action: 'resolve' });
  assert.equal(act.status, 303);
  assert.deepEqual(await ongoing(mon), []);
  target.respond(200);
  await p.advance(2 * MIN);
  assert.equal(await status(mon), 'up');
  assert.deepEqual(await ongoing(mon), []);
  const all = (await (await p.api('/v2/outages')).json()).outages.filter((o: { monitor?: { uuid: string } | null }) => o.monitor?.uuid === mon);
  assert.equal(all.length, 2);
});

// The same for a healthcheck (issue 33 point 11): resolved by hand while it is still down (late, or its
// last ping a fail signal), the next missed deadline (counted from the resolve) or the next fail ping
// opens a new outage; a success ping in between only sets it up.
test('a healthcheck resolved by hand while still down: the next missed deadline or fail ping opens a new outage; a success ping sets it up', async () => {
  const created = await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'Nightly backup', period_value: 1, period_type: 'minutes', grace_period_value: 1, grace_period_type: 'minutes' } });
  assert.equal(created.status, 201);
  const hc = (await created.json()).healthcheck.uuid as string;
  const isDown = async () => (await (await p.api(`/v1/healthchecks/${hc}`)).json()).isDown as boolean;
  const ping = (suffix = '') => fetch(`${p.url}/ping/${hc}${suffix}`).then((r) => assert.equal(r.status, 200));

  await p.advance(2 * MIN + 1);
  const [late] = await ongoing(hc);
  assert.ok(late, 'the missed deadline opened an outage');
  assert.equal((await p.api(`/v2/outages/${late.uuid}/resolve`, { method: 'POST', json: { message: 'ran it by hand' } })).status, 200);
  assert.deepEqual(await ongoing(hc), []);
  assert.equal(await isDown(), true, 'resolving by hand does not say the job ran');

  // What a restart or a take-over does: the deadlines are read back from the store (down, no open outage: watched).
  await p.deadlines.stop();
  await p.deadlines.start();
  // Still no ping: one period and grace after the resolve, a new outage.
  await p.advance(2 * MIN);
  assert.deepEqual(await ongoing(hc), [], 'not before the deadline counted from the resolve');
  await p.advance(1);
  const again = await ongoing(hc);
  assert.equal(again.length, 1, 'the next missed deadline opened a new outage');
  assert.notEqual(again[0]!.uuid, late.uuid);

  // The console's Resolve says what will happen; resolved there, then the job signals a failure: a new outage at once.
  const admin = await adminSession();
  const page = await admin.get(`/outages/${again[0]!.uuid}`);
  assert.match(page.html, /id="resolve-hint"[^>]*>\s*The job still fails: Resolve closes this outage, and a new outage opens at the next missed deadline or fail signal/);
  assert.equal((await admin.post(`/outages/${again[0]!.uuid}/act`, { action: 'resolve' })).status, 303);
  assert.deepEqual(await ongoing(hc), []);
  await ping('/fail');
  const third = await ongoing(hc);
  assert.equal(third.length, 1, 'the next fail ping opened a new outage');

  // Resolved by hand once more, then the job succeeds: up, nothing opened or left open.
  assert.equal((await p.api(`/v2/outages/${third[0]!.uuid}/resolve`, { method: 'POST', json: {} })).status, 200);
  await ping();
  assert.equal(await isDown(), false);
  assert.deepEqual(await ongoing(hc), []);
  const all = (await (await p.api('/v2/outages')).json()).outages.filter((o: { monitor?: { uuid: string } | null }) => o.monitor?.uuid === hc);
  assert.equal(all.length, 3);
});
