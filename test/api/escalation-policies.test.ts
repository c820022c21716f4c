import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// Issue 32 point 1: /v1/escalation-policies — stored policies with steps of {delay_minutes, targets},
// partial updates, attach to many monitors and healthchecks at once, 409s for provisioned ones and
// ones in use. Runs on both stores (PHAROS_TEST_DRIVER=postgres).
let p: TestPharos;
let hookA: string;
let hookB: string;
let readToken: string;

const policy = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  team: 'SRE',
  steps: [
    { delay_minutes: 0, targets: [{ type: 'integration', uuid: hookA }] },
    { delay_minutes: 15, targets: [{ type: 'integration', uuid: hookA }, { type: 'integration', uuid: hookB }] },
  ],
  repeat_count: 3,
  repeat_every_minutes: 30,
  ...extra,
});

before(async () => {
  p = await startTestPharos({
    channels: [{ name: 'yaml-hook', type: 'webhook', url: 'http://127.0.0.1:9/yaml' }],
    escalation_policies: [{ uuid: 'ep_yaml', name: 'From YAML', steps: [{ after_minutes: 0, channels: ['yaml-hook'] }], repeat_every_minutes: 10 }],
  });
  const mk = async (name: string) => (await (await p.api('/v1/integrations', { method: 'POST', json: { name, type: 'webhook', settings: { url: `http://127.0.0.1:9/${name}` } } })).json()).uuid as string;
  hookA = await mk('hook-a');
  hookB = await mk('hook-b');
  readToken = (await p.core.users.createToken({ email: 'reader@example.com', name: 'Reader', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
});
after(() => p.cleanup());

describe('/v1/escalation-policies', () => {
  test('create answers 201 in the documented shape; list and get show it', async () => {
    const res = await p.api('/v1/escalation-policies', { method: 'POST', json: policy('Business hours') });
    const body = await res.json();
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.match(body.uuid, /^ep_/);
    assert.deepEqual(
      { name: body.name, team: body.team, steps: body.steps, repeat_count: body.repeat_count, repeat_every_minutes: body.repeat_every_minutes, provisioned: body.provisioned },
      { name: 'Business hours', team: 'SRE', steps: policy('x').steps, repeat_count: 3, repeat_every_minutes: 30, provisioned: false },
    );
    assert.ok(!Number.isNaN(Date.parse(body.created_at)) && !Number.isNaN(Date.parse(body.updated_at)));
    const list = await (await p.api('/v1/escalation-policies', { token: readToken })).json();
    assert.deepEqual(list.map((x: { name: string }) => x.name), ['Business hours', 'From YAML']);
    assert.deepEqual(await (await p.api(`/v1/escalation-policies/${body.uuid}`)).json(), body);
  });

  test('config.yaml policies are listed as provisioned, channel names become integration uuids; API writes get 409 escalation_policies.provisioned', async () => {
    const yaml = await (await p.api('/v1/escalation-policies/ep_yaml')).json();
    const hook = (await (await p.api('/v1/integrations')).json()).find((i: { name: string }) => i.name === 'yaml-hook');
    assert.equal(hook.provisioned, true);
    assert.deepEqual(
      { provisioned: yaml.provisioned, steps: yaml.steps, repeat_count: yaml.repeat_count, repeat_every_minutes: yaml.repeat_every_minutes },
      { provisioned: true, steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook.uuid }] }], repeat_count: 0, repeat_every_minutes: 10 },
    );
    for (const [method, json] of [['PUT', { name: 'changed' }], ['PATCH', { name: 'changed' }], ['DELETE', undefined]] as const) {
      const res = await p.api('/v1/escalation-policies/ep_yaml', { method, ...(json ? { json } : {}) });
      assert.equal(res.status, 409, method);
      const body = await res.json();
      assert.equal(body.code, 'escalation_policies.provisioned');
      assert.match(body.message, /"From YAML" is declared in config\.yaml/);
    }
    const hookWrite = await p.api(`/v1/integrations/${hook.uuid}`, { method: 'PUT', json: { enabled: false } });
    assert.equal(hookWrite.status, 409);
    assert.equal((await hookWrite.json()).code, 'integrations.provisioned');
    assert.equal((await p.api(`/v1/integrations/${hook.uuid}`, { method: 'DELETE' })).status, 409);
  });

  test('bad bodies answer 400 naming the field and the rule', async () => {
    const step = (targets: unknown[], delay = 0) => ({ delay_minutes: delay, targets });
    const cases: Array<[unknown, RegExp]> = [
      [{ steps: [step([])] }, /^name: /],
      [{ name: 'x' }, /^steps: is required/],
      [{ name: 'x', steps: [] }, /^steps: must have at least one step/],
      [{ name: 'x', steps: [step([], -1)] }, /^steps\[0\]\.delay_minutes: must be a whole number of minutes from 0/],
      [{ name: 'x', steps: [step([], 1.5)] }, /^steps\[0\]\.delay_minutes: /],
      [{ name: 'x', steps: [step([], 10), step([], 5)] }, /^steps\[1\]\.delay_minutes: must not be less than the previous step's/],
      [{ name: 'x', steps: [step([{ type: 'integration', uuid: hookA }, { type: 'user', uuid: 'user_x' }])] }, /^steps\[0\]\.targets\[1\]\.uuid: no team member "user_x"/],
      [{ name: 'x', steps: [step([{ type: 'schedule', uuid: 'sch_x' }])] }, /^steps\[0\]\.targets\[0\]\.uuid: no on-call schedule "sch_x"/],
      [{ name: 'x', steps: [step([{ type: 'pager', uuid: 'x' }])] }, /^steps\[0\]\.targets\[0\]\.type: must be one of integration, user, schedule/],
      [{ name: 'x', steps: [step([]), step([{ type: 'integration', uuid: 'int_missing' }])] }, /^steps\[1\]\.targets\[0\]\.uuid: no integration "int_missing"/],
      [{ name: 'x', steps: [step([])], repeat_count: -1 }, /^repeat_count: must be a whole number from 0/],
      [{ name: 'x', steps: [step([])], repeat_every_minutes: 0 }, /^repeat_every_minutes: /],
      [{ name: 'x', steps: [step([])], colour: 'red' }, /colour/],
    ];
    for (const [json, message] of cases) {
      const res = await p.api('/v1/escalation-policies', { method: 'POST', json });
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.match(body.message, message, JSON.stringify(json));
    }
    const taken = await p.api('/v1/escalation-policies', { method: 'POST', json: policy('Business hours') });
    assert.equal(taken.status, 409);
    assert.equal((await taken.json()).code, 'escalation_policies.name_taken');
    assert.equal((await p.api('/v1/escalation-policies', { method: 'POST', json: policy('ro'), token: readToken })).status, 403);
  });

  test('update is partial (PUT and PATCH): fields left out keep their values, steps replaced whole, checked as a whole', async () => {
    const created = await (await p.api('/v1/escalation-policies', { method: 'POST', json: policy('Partial') })).json();
    const renamed = await (await p.api(`/v1/escalation-policies/${created.uuid}`, { method: 'PUT', json: { name: 'Renamed' } })).json();
    assert.equal(renamed.name, 'Renamed');
    assert.deepEqual(renamed.steps, created.steps);
    assert.equal(renamed.repeat_count, 3);
    // What was read, sent back with one change (read-only fields are ignored).
    const patched = await p.api(`/v1/escalation-policies/${created.uuid}`, { method: 'PATCH', json: { ...renamed, steps: [{ delay_minutes: 5, targets: [{ type: 'integration', uuid: hookB }] }], team: null } });
    const body = await patched.json();
    assert.equal(patched.status, 200, JSON.stringify(body));
    assert.deepEqual(body.steps, [{ delay_minutes: 5, targets: [{ type: 'integration', uuid: hookB }] }]);
    assert.equal(body.team, null);
    assert.equal(body.name, 'Renamed');
    const bad = await p.api(`/v1/escalation-policies/${created.uuid}`, { method: 'PUT', json: { steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: 'int_gone' }] }] } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^steps\[0\]\.targets\[0\]\.uuid: /);
    assert.deepEqual((await (await p.api(`/v1/escalation-policies/${created.uuid}`)).json()).steps, body.steps, 'nothing stored');
    const audit = await p.store.async.auditLog.page({ resourceType: 'escalation_policy', resourceUuid: created.uuid }, 10);
    assert.deepEqual(audit.entries.map((e) => e.action), ['update', 'update', 'create']);
    assert.deepEqual(audit.entries[1]!.diff, { name: { before: 'Partial', after: 'Renamed' } });
  });

  test('attach gives many monitors and healthchecks the policy at once; an unknown uuid changes nothing (400 naming it)', async () => {
    const target = await (await p.api('/v1/escalation-policies', { method: 'POST', json: policy('Attach me') })).json();
    const monitors: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      monitors.push((await (await p.api('/v1/monitors', { method: 'POST', json: { name, url: `https://${name}.example.com`, paused: true } })).json()).uuid);
    }
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'nightly', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' } })).json()).healthcheck;

    const bad = await p.api(`/v1/escalation-policies/${target.uuid}/attach`, { method: 'POST', json: { monitors: [monitors[0], 'mon_nope'], healthchecks: [hc.uuid] } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^monitors\[1\]: no monitor "mon_nope"/);
    assert.equal((await (await p.api(`/v1/monitors/${monitors[0]}`)).json()).escalation_policy, null, 'all or nothing');

    const res = await p.api(`/v1/escalation-policies/${target.uuid}/attach`, { method: 'POST', json: { monitors, healthchecks: [hc.uuid] } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { message: 'Escalation policy attached', monitors: 3, healthchecks: 1 });
    for (const uuid of monitors) assert.deepEqual((await (await p.api(`/v1/monitors/${uuid}`)).json()).escalation_policy, { uuid: target.uuid, name: 'Attach me' });
    assert.deepEqual((await (await p.api(`/v1/healthchecks/${hc.uuid}`)).json()).escalationPolicy, { uuid: target.uuid, name: 'Attach me' });

    // In use: 409 naming who uses it.
    const refused = await p.api(`/v1/escalation-policies/${target.uuid}`, { method: 'DELETE' });
    assert.equal(refused.status, 409);
    const body = await refused.json();
    assert.equal(body.code, 'escalation_policies.in_use');
    assert.match(body.message, /monitor "one" \(mon_/);
    assert.match(body.message, /healthcheck "nightly" \(hc_/);
    for (const uuid of monitors) await p.api(`/v1/monitors/${uuid}`, { method: 'DELETE' });
    await p.api(`/v1/healthchecks/${hc.uuid}`, { method: 'DELETE' });
    assert.equal((await p.api(`/v1/escalation-policies/${target.uuid}`, { method: 'DELETE' })).status, 200);
    assert.equal((await p.api(`/v1/escalation-policies/${target.uuid}`)).status, 404);
  });

  test('monitors, healthchecks and manual outages accept a stored policy and refuse an unknown one (read from the database)', async () => {
    const stored = await (await p.api('/v1/escalation-policies', { method: 'POST', json: policy('Referenced') })).json();
    const m = await p.api('/v1/monitors', { method: 'POST', json: { name: 'ref', url: 'https://ref.example.com', paused: true, escalation_policy: stored.uuid } });
    assert.equal(m.status, 201);
    assert.deepEqual((await m.json()).escalation_policy, { uuid: stored.uuid, name: 'Referenced' });
    const unknown = await p.api('/v1/monitors', { method: 'POST', json: { name: 'ref2', url: 'https://ref.example.com', escalation_policy: 'ep_nope' } });
    assert.equal(unknown.status, 400);
    assert.match((await unknown.json()).message, /^escalation_policy: unknown escalation policy "ep_nope"/);
    const hc = await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'ref', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours', escalation_policy: 'ep_nope' } });
    assert.equal(hc.status, 400);
    assert.match((await hc.json()).message, /^escalation_policy: unknown escalation policy "ep_nope"/);
    const outage = await p.api('/v2/outages', { method: 'POST', json: { description: 'manual', escalationPolicyUuid: 'ep_nope' } });
    assert.equal(outage.status, 400);
    const ok = await p.api('/v2/outages', { method: 'POST', json: { description: 'manual', escalationPolicyUuid: stored.uuid } });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).outage.escalationPolicy.name, 'Referenced');
  });

  test('unknown uuids answer 404 on every route', async () => {
    for (const [method, path, json] of [
      ['GET', '/v1/escalation-policies/ep_nope', undefined],
      ['PUT', '/v1/escalation-policies/ep_nope', { name: 'x' }],
      ['PATCH', '/v1/escalation-policies/ep_nope', { name: 'x' }],
      ['DELETE', '/v1/escalation-policies/ep_nope', undefined],
      ['POST', '/v1/escalation-policies/ep_nope/attach', { monitors: [] }],
    ] as const) {
      const res = await p.api(path, { method, ...(json ? { json } : {}) });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal((await res.json()).code, 'escalation_policies.not_found');
    }
  });
});
