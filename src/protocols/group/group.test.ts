import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createProbes } from '../../engine/probes/index.ts';
import { ManualClock } from '../../../test/support/manual-clock.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { httpTarget, type HttpTarget } from '../../../test/support/targets.ts';
import { setupAdmin } from '../../../test/support/console.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// Issue 36: the group monitor sums up other monitors. The contract runs on stored states given
// directly (the group's "server" is Pharos's own store); the flows run a real Pharos over HTTP on a
// manual clock with real local HTTP members.

const states = new Map<string, { name: string; status: 'up' | 'down'; paused: boolean }>([
  ['mon_a', { name: 'a', status: 'up', paused: false }],
  ['mon_b', { name: 'b', status: 'down', paused: false }],
  ['mon_c', { name: 'c', status: 'down', paused: false }],
  ['mon_p', { name: 'p', status: 'down', paused: true }],
]);
const probes = createProbes({ userAgent: 'pharos-test', monitorStates: async (uuids) => uuids.map((u) => states.get(u)) });
const spec = (members: string[]) => specOf({ url: 'group:lan', protocol: 'group', group_members: members });

probeContract('group', () => probes.group, { pass: async () => spec(['mon_a']), fail: async () => spec(['mon_b', 'mon_c']) });

test('group: all up → up; some down → up and degraded; all down → down naming them; paused left out; unknown named; an agent refuses', async () => {
  assert.deepEqual(pick(await probes.group.check(spec(['mon_a', 'mon_p']))), { ok: true, statusCode: 0, reason: null });
  const some = await probes.group.check(spec(['mon_a', 'mon_b']));
  assert.equal(some.ok, true);
  assert.equal(some.degraded, true);
  assert.equal((await probes.group.check(spec(['mon_b', 'mon_c', 'mon_x']))).reason, 'All 2 members down: b, c (1 member not found)');
  const agent = createProbes({ userAgent: 'pharos-test' });
  assert.match((await agent.group.check(spec(['mon_a']))).reason ?? '', /checked by the server, not by an agent/);
});

describe('group monitor in a real Pharos', () => {
  let p: TestPharos;
  const targets: HttpTarget[] = [];
  before(async () => {
    p = await startTestPharos({ probe: { region: 'london', confirmation_checks: 1 } }, new ManualClock());
  });
  after(async () => {
    for (const t of targets) await t.stop();
    await p.cleanup();
  });

  test('up, degraded when one member is down, down when all are, recovery; API and OpenAPI', async () => {
    const a = await httpTarget(200);
    const b = await httpTarget(200);
    targets.push(a, b);
    const ma = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'nas', url: a.url, check_frequency: 10 } })).json();
    const mb = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'printer', url: b.url, check_frequency: 10 } })).json();
    const empty = await p.api('/v1/monitors', { method: 'POST', json: { name: 'g', url: 'group:x', protocol: 'group' } });
    assert.equal(empty.status, 400);
    assert.match((await empty.json()).message, /^group_members: /);
    const unknown = await p.api('/v1/monitors', { method: 'POST', json: { name: 'g', url: 'group:x', protocol: 'group', group_members: ['mon_nope'] } });
    assert.equal(unknown.status, 400);
    assert.match((await unknown.json()).message, /^group_members: unknown monitor "mon_nope"/);
    let uuid = '';
    await upDownRecover(
      p,
      { name: 'home lab', url: 'group:home', protocol: 'group', group_members: [ma.uuid, mb.uuid] },
      {
        breakIt: async () => {
          a.respond(500);
          b.respond(500);
          await p.advance(10_000);
        },
        reason: 'All 2 members down: nas, printer',
        fixIt: async () => {
          a.respond(200);
          b.respond(200);
          await p.advance(10_000);
        },
      },
    ).then((m) => (uuid = m.uuid as string));
    assert.deepEqual((await (await p.api(`/v1/monitors/${uuid}`)).json()).group_members, [ma.uuid, mb.uuid]);
    b.respond(500);
    await p.advance(10_000);
    await p.advance(10_000);
    const g = await p.core.monitors.get(uuid);
    assert.equal(g.status, 'up');
    assert.equal(g.degraded, true, 'one member down: degraded');
    // The console's monitor page names the members.
    const admin = await setupAdmin(p);
    assert.match((await admin.get(`/monitors/${uuid}`)).html, /Members[\s\S]*nas · printer/);
    const doc = JSON.stringify(await (await p.api('/openapi.json')).json());
    assert.ok(doc.includes('group_members'));
  });
});
