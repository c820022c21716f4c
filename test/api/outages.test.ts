import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';

// The /v2/outages API over real HTTP with a real SQLite file and a manual clock.
const POLICY = { uuid: 'ep_oncall', name: 'On call', steps: [{ after_minutes: 0, channels: [] }, { after_minutes: 10, channels: [] }] };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(): Promise<TestPharos> {
  const p = await startTestPharos({ escalation_policies: [POLICY] });
  cleanups.push(() => p.cleanup());
  return p;
}

async function report(p: TestPharos, json: Record<string, unknown>, token?: string) {
  const res = await p.api('/v2/outages', { method: 'POST', json, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  assert.equal(body.message, 'Outage created');
  return body.outage;
}
const post = (p: TestPharos, path: string, init: { token?: string; body?: string; json?: unknown } = {}) => p.api(path, { method: 'POST', ...init });

describe('outages API', () => {
  test('a manual outage has protocol and location "manual", status code 0, no monitor, and the caller as reporter', async () => {
    const p = await setup();
    const o = await report(p, { description: 'Payments are failing', severity: 'critical', summary: 'Card processor down', escalationPolicyUuid: 'ep_oncall' });
    assert.equal(o.protocol, 'manual');
    assert.equal(o.detectedLocation, 'manual');
    assert.equal(o.statusCode, 0);
    assert.equal(o.monitor, null);
    assert.equal(o.severity, 'critical');
    assert.equal(o.summary, 'Card processor down');
    assert.equal(o.isResolved, false);
    assert.equal(o.incidentNumber, 1);
    assert.equal(o.reportedBy.email, 'admin@localhost');
    assert.deepEqual(o.escalationPolicy, { uuid: 'ep_oncall', name: 'On call', alertedSteps: 1, totalSteps: 2 });
    assert.equal((await report(p, { description: 'second' })).severity, 'minor', 'severity defaults to minor');

    for (const [json, field] of [
      [{}, 'description'],
      [{ description: '' }, 'description'],
      [{ description: 'x', severity: 'huge' }, 'severity'],
      [{ description: 'x', escalationPolicyUuid: 'ep_nope' }, 'escalationPolicyUuid'],
    ] as const) {
      const res = await p.api('/v2/outages', { method: 'POST', json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.ok((await res.json()).error.startsWith(`${field}:`));
    }
  });

  test('45 outages page as 20/20/5 newest first; INC-7 search, substring search and filters', async () => {
    const p = await setup();
    for (let i = 1; i <= 45; i++) {
      await report(p, { description: i % 5 === 0 ? `Database replica ${i} lagging` : `Outage ${i}` });
      await p.advance(60_000);
    }
    const pages = [];
    for (const n of [0, 1, 2]) pages.push(await (await p.api(`/v2/outages?page=${n}`)).json());
    assert.deepEqual(pages.map((pg) => pg.outages.length), [20, 20, 5]);
    assert.deepEqual(pages.map((pg) => pg.hasNextPage), [true, true, false]);
    assert.deepEqual(pages.map((pg) => [pg.total, pg.ongoingCount, pg.page, pg.resultsPerPage]), [[45, 45, 0, 20], [45, 45, 1, 20], [45, 45, 2, 20]]);
    const numbers = pages.flatMap((pg) => pg.outages.map((o: { incidentNumber: number }) => o.incidentNumber));
    assert.deepEqual(numbers, Array.from({ length: 45 }, (_, i) => 45 - i), 'newest startDate first');

    const inc7 = await (await p.api('/v2/outages?search=INC-7')).json();
    assert.deepEqual(inc7.outages.map((o: { incidentNumber: number }) => o.incidentNumber), [7]);
    const sub = await (await p.api('/v2/outages?search=replica')).json();
    assert.equal(sub.total, 9);

    const first = pages[2].outages.at(-1);
    assert.equal((await post(p, `/v2/outages/${first.uuid}/resolve`)).status, 200);
    const resolved = await (await p.api('/v2/outages?status=resolved')).json();
    assert.deepEqual(resolved.outages.map((o: { uuid: string }) => o.uuid), [first.uuid]);
    assert.equal((await (await p.api('/v2/outages?status=ongoing')).json()).total, 44);
    assert.equal((await (await p.api('/v2/outages?type=manual')).json()).total, 45);
    assert.equal((await (await p.api('/v2/outages?type=monitor')).json()).total, 0);
    for (const q of ['page=-1', 'page=x', 'status=open', 'type=auto']) assert.equal((await p.api(`/v2/outages?${q}`)).status, 400, q);
  });

  test('acknowledge, unacknowledge, resolve and escalate follow the state rules (200/403/404/409)', async () => {
    const p = await setup();
    const other = (await p.core.users.createToken({ email: 'bob@example.com', name: 'Bob', scope: 'write' }, { type: 'system', id: 'test', name: 'test' })).token;
    const reader = (await p.core.users.createToken({ email: 'r@example.com', name: 'R', scope: 'read' }, { type: 'system', id: 'test', name: 'test' })).token;
    const o = await report(p, { description: 'API slow', escalationPolicyUuid: 'ep_oncall' });
    const base = `/v2/outages/${o.uuid}`;

    assert.equal((await post(p, `${base}/acknowledge`, { token: reader })).status, 403, 'read tokens cannot act');
    const ack = await post(p, `${base}/acknowledge`, { json: { message: 'looking into it' } });
    assert.equal(ack.status, 200);
    const ackBody = await ack.json();
    assert.equal(ackBody.message, 'Outage acknowledged');
    assert.equal(ackBody.acknowledgedAt, new Date(p.clock.now()).toISOString());
    assert.equal(ackBody.acknowledgedBy.email, 'admin@localhost');
    assert.equal((await post(p, `${base}/acknowledge`)).status, 409, 'already acknowledged');
    assert.equal((await post(p, `${base}/unacknowledge`, { token: other })).status, 403, 'only the acknowledger may unacknowledge');
    assert.equal((await post(p, `${base}/unacknowledge`)).status, 200);
    assert.equal((await post(p, `${base}/unacknowledge`)).status, 409, 'not acknowledged');

    const esc = await post(p, `${base}/escalate`);
    assert.equal(esc.status, 200);
    assert.equal((await esc.json()).outage.escalationPolicy.alertedSteps, 2);
    assert.equal((await post(p, `${base}/escalate`)).status, 409, 'no next step');
    const bad = await p.api(`${base}/acknowledge`, { method: 'POST', body: '{"message": ', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400, 'a body must be empty or JSON {message}');
    assert.equal((await p.api(`${base}/acknowledge`, { method: 'POST', json: { message: 42 } })).status, 400);

    const res = await post(p, `${base}/resolve`, { json: { message: 'fixed by restart' } });
    assert.equal(res.status, 200);
    const resolved = await res.json();
    assert.equal(resolved.endDate, new Date(p.clock.now()).toISOString());
    assert.equal(resolved.outage.isResolved, true);
    for (const action of ['resolve', 'acknowledge', 'escalate']) assert.equal((await post(p, `${base}/${action}`)).status, 409, action);

    const noPolicy = await report(p, { description: 'no policy' });
    assert.equal((await post(p, `/v2/outages/${noPolicy.uuid}/escalate`)).status, 409);
    for (const action of ['acknowledge', 'unacknowledge', 'resolve', 'escalate']) assert.equal((await post(p, `/v2/outages/outage_missing/${action}`)).status, 404);

    const timeline = (await (await p.api(`${base}/timeline`)).json()).events;
    assert.deepEqual(
      timeline.map((e: { type: string }) => e.type),
      ['opened', 'alerted', 'acknowledged', 'unacknowledged', 'escalated', 'resolved'],
    );
    assert.equal(timeline[2].message, 'looking into it');
    assert.equal(timeline[2].user.email, 'admin@localhost');
    assert.equal(timeline[5].message, 'fixed by restart');

    assert.deepEqual(await (await p.api(base, { method: 'DELETE' })).json(), { message: 'Outage deleted' });
    assert.equal((await p.api(base)).status, 404);
    assert.equal((await p.api(base, { method: 'DELETE' })).status, 404);
  });
});
