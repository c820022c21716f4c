import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpTarget } from '../support/targets.ts';
import { arr, assertDecodes, bool, int, num, obj, str } from './clients/shapes.ts';
import { go, goWrap, py } from './clients/types.ts';

// Outages with their actions, and reports, as the hosted service's clients send and read them.
const POLICY = { uuid: 'ep_oncall', name: 'On call', steps: [{ after_minutes: 0, channels: [] }, { after_minutes: 30, channels: [] }] };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(config: Record<string, unknown> = {}): Promise<TestPharos> {
  const p = await startTestPharos({ escalation_policies: [POLICY], ...config });
  cleanups.push(() => p.cleanup());
  return p;
}
const json = async (p: TestPharos, path: string, method = 'GET', body?: unknown) => {
  const res = await p.api(path, { method, ...(body === undefined ? {} : { json: body }) });
  return { status: res.status, body: await res.json() };
};
/** An action as the Go client sends it: `Content-Type: application/json` and an empty body. */
const goAction = async (p: TestPharos, uuid: string, action: string) => {
  const res = await p.api(`/v2/outages/${uuid}/${action}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '' });
  return { status: res.status, body: await res.json() };
};

describe('outages (Go Outage/OutageAction, Python Outage/OutageAction)', () => {
  test('actions with an empty JSON body answer 200 with status and uuid; repeats answer 409 with where the outage stands', async () => {
    const p = await setup();
    // CreateOutageRequest of the Go client (monitorUuid, startDate, statusCode, outageType are ignored).
    const created = await json(p, '/v2/outages', 'POST', { monitorUuid: '', startDate: '2026-01-01T00:00:00Z', statusCode: 0, description: 'Payments failing', outageType: 'manual', severity: 'major', escalationPolicyUuid: 'ep_oncall' });
    assert.equal(created.status, 200);
    assertDecodes(created.body, goWrap.outageCreate, 'Go {message, outage}');
    const uuid = created.body.outage.uuid as string;
    assert.equal(created.body.outage.outageType, 'manual');

    const ack = await goAction(p, uuid, 'acknowledge');
    assert.equal(ack.status, 200, JSON.stringify(ack.body));
    assertDecodes(ack.body, go.OutageAction, 'Go OutageAction');
    assertDecodes(ack.body, py.OutageAction, 'Python OutageAction');
    assert.deepEqual([ack.body.uuid, ack.body.status], [uuid, 'acknowledged']);

    // CONTRACT.md keeps the 409 for a repeat (docs/api.md "Clients"); the body still tells the state.
    const again = await goAction(p, uuid, 'acknowledge');
    assert.equal(again.status, 409);
    assert.deepEqual([again.body.code, again.body.status, again.body.uuid], ['outages.already_acknowledged', 'acknowledged', uuid]);
    assert.equal(again.body.message, again.body.error);
    assertDecodes(again.body.outage, go.Outage, 'Go Outage (in the 409)');

    const unack = await goAction(p, uuid, 'unacknowledge');
    assert.deepEqual([unack.status, unack.body.status], [200, 'ongoing']);
    assertDecodes(unack.body, go.OutageAction, 'Go OutageAction');
    const esc = await goAction(p, uuid, 'escalate');
    assert.deepEqual([esc.status, esc.body.status], [200, 'ongoing']);
    assertDecodes(esc.body, py.OutageAction, 'Python OutageAction');
    assert.equal(esc.body.outage.escalationPolicy.alertedSteps, 2);

    // The Python SDK sends {message} when it has one, and nothing at all otherwise.
    const resolved = await json(p, `/v2/outages/${uuid}/resolve`, 'POST', { message: 'Processor back' });
    assert.deepEqual([resolved.status, resolved.body.status], [200, 'resolved']);
    assertDecodes(resolved.body, py.OutageAction, 'Python OutageAction');
    const timeline = (await json(p, `/v2/outages/${uuid}/timeline`)).body.events;
    assert.equal(timeline.at(-1).message, 'Processor back');
    const bare = await p.api(`/v2/outages/${uuid}/resolve`, { method: 'POST' });
    assert.equal(bare.status, 409);
    assert.equal((await bare.json()).status, 'resolved');
    const malformed = await p.api(`/v2/outages/${uuid}/escalate`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"message":' });
    assert.equal(malformed.status, 400, 'a body that is not empty must still be JSON');
  });

  test('GET answers the bare outage plus the same under outage; list and detected outages decode', async () => {
    const p = await setup();
    const hc = (await json(p, '/v1/healthchecks', 'POST', { name: 'backup', period_value: 1, period_type: 'hours', grace_period_value: 1, grace_period_type: 'hours' })).body.healthcheck;
    assert.equal((await p.api(`/ping/${hc.uuid}/fail`)).status, 200);
    await json(p, '/v2/outages', 'POST', { description: 'manual one' });
    const list = await json(p, '/v2/outages');
    assertDecodes(list.body, goWrap.outageList, 'Go outage list');
    assertDecodes(list.body.outages, arr(py.Outage), 'Python list[Outage]');
    const detected = list.body.outages.find((o: { outageType: string }) => o.outageType === 'automatic');
    assert.equal(detected.monitor.uuid, hc.uuid);

    for (const o of list.body.outages) {
      const got = await json(p, `/v2/outages/${o.uuid}`);
      assertDecodes(got.body, go.Outage, 'Go Outage (bare, API.md)');
      assertDecodes(got.body, goWrap.outageGet, 'Go GetOutage {outage}');
      assertDecodes(got.body, py.Outage, 'Python Outage');
      assert.deepEqual({ ...got.body, outage: undefined }, { ...got.body.outage, outage: undefined });
    }
  });
});

describe('reports (Go MonitorReport / ListMonitorReportsResponse, Python MonitorReport)', () => {
  /** A monitor that goes down (its target stops listening) with its outage ongoing. */
  async function downMonitor(p: TestPharos) {
    const target = await httpTarget();
    cleanups.push(() => target.stop().catch(() => {}));
    const m = (await json(p, '/v1/monitors', 'POST', { name: 'API', url: target.url, check_frequency: 10 })).body;
    await p.advance(10_000);
    await target.stop();
    for (let i = 0; i < 20 && (await json(p, `/v1/monitors/${m.uuid}`)).body.status !== 'down'; i++) await p.advance(5_000);
    assert.equal((await json(p, `/v1/monitors/${m.uuid}`)).body.status, 'down');
    await p.advance(60_000);
    return m.uuid as string;
  }

  test('default: the list is API.md\'s [{uuid, name, sla}]; a single report decodes in both clients', async () => {
    const p = await setup();
    const uuid = await downMonitor(p);
    const list = await json(p, '/v2/reporting/monitor-reports');
    assertDecodes(list.body, arr(obj({ uuid: str, name: str, sla: num })), 'API.md ReportSummary[]');
    const one = await json(p, `/v2/reporting/monitor-reports/${uuid}`);
    assertDecodes(one.body, go.MonitorReport, 'Go MonitorReport');
    assert.equal(one.body.outages.details[0].endDate, null, 'API.md mode: an ongoing outage has no end');
  });

  test('api.compatibility: hosted answers {period, monitors: [full reports]}, every detail with an endDate', async () => {
    const p = await setup({ api: { compatibility: 'hosted' } });
    const uuid = await downMonitor(p);
    const list = await json(p, '/v2/reporting/monitor-reports');
    assertDecodes(list.body, goWrap.reportList, 'Go ListMonitorReportsResponse');
    assertDecodes(list.body.monitors, arr(py.MonitorReport), 'Python list[MonitorReport]');
    const [report] = list.body.monitors;
    assert.equal(report.uuid, uuid);
    assert.equal(report.outages.count, 1);
    assert.equal(report.outages.details[0].endDate, report.period.to, 'an ongoing outage counts up to the end of the window');
    const one = await json(p, `/v2/reporting/monitor-reports/${uuid}`);
    assertDecodes(one.body, py.MonitorReport, 'Python MonitorReport');
    assertDecodes(one.body, obj({ sla: num, mttr: int, outages: obj({ count: int }) }), 'figures');
    const bad = await json(p, '/v2/reporting/monitor-reports?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    assertDecodes(bad.body, obj({ error: str, message: str, code: str }), 'error body');
    assertDecodes({ ok: true }, obj({ ok: bool }), 'sanity');
  });
});
