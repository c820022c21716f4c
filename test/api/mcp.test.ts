import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestPharos, WRITE_TOKEN, type TestPharos } from '../support/pharos.ts';
import { httpTarget, type HttpTarget } from '../support/targets.ts';
import { assertDecodes, arr } from './clients/shapes.ts';
import { mcp, mcpOutageList, recorded, RECORDED_TOOL_NAMES } from './clients/mcp-types.ts';

// Issue 35 point 3: POST /v1/mcp, the Model Context Protocol over Streamable HTTP, spoken by the
// official SDK's own Client against a real Pharos. Every tool's answer is decoded against
// hyperping-go's published MCP types (clients/mcp-types.ts) and compared with its recorded answers.
// Both stores (PHAROS_TEST_DRIVER).

const NOW = Date.parse('2026-06-03T10:00:00Z');
let p: TestPharos;
let readToken: string;
let monitor: string;
let paused: string;
let policy: string;
let hook: string;
let schedule: string;
let outage: string;
let checkout: string;
let checkoutOutage: string;
let target: HttpTarget;

/** An SDK client connected to the test Pharos with `token`. */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'pharos-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/v1/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}
let writer: Client;
let reader: Client;

/** Calls a tool and parses `content[0].text` as hyperping-go's transport does; fails on `isError`. */
async function call(name: string, args: Record<string, unknown> = {}, client = writer): Promise<any> {
  const res = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
  assert.notEqual(res.isError, true, `${name}: ${res.content[0]?.text}`);
  assert.equal(res.content[0]!.type, 'text');
  return JSON.parse(res.content[0]!.text);
}

/** Every key of a recorded hosted answer is in Pharos's, with the same JSON kind (`missing`: keys Pharos documents it leaves out). */
function sameKeys(answer: unknown, hosted: unknown, label: string, missing: string[] = []): void {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  assert.equal(kind(answer), kind(hosted), `${label}: kind`);
  if (Array.isArray(hosted)) {
    for (const [i, h] of hosted.entries()) if (Array.isArray(answer) && answer[i] !== undefined) sameKeys(answer[i], h, `${label}[${i}]`, missing);
    return;
  }
  if (kind(hosted) !== 'object') return;
  for (const [k, v] of Object.entries(hosted as object)) {
    if (missing.includes(k)) continue;
    const a = (answer as Record<string, unknown>)[k];
    assert.ok(k in (answer as object), `${label}.${k}: missing`);
    if (v !== null && a !== null) assert.equal(kind(a), kind(v), `${label}.${k}: kind`);
  }
}

before(async () => {
  p = await startTestPharos({}, new ManualClock(NOW));
  const actor = { type: 'system' as const, id: 'test', name: 'test' };
  readToken = (await p.core.users.createToken({ email: 'reader@example.com', name: 'Reader', scope: 'read' }, actor)).token;
  const ann = (await p.core.accounts.create({ email: 'ann@example.com', name: 'Ann', role: 'editor', password: 'a long enough password 1' }, actor)).uuid;
  const post = async (path: string, json: unknown) => {
    const res = await p.api(path, { method: 'POST', json });
    const body = await res.json();
    assert.ok(res.status < 300, `${path}: ${JSON.stringify(body)}`);
    return body;
  };
  hook = (await post('/v1/integrations', { name: 'ops-hook', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hook' } })).uuid;
  policy = (await post('/v1/escalation-policies', { name: 'Primary', team: 'SRE', steps: [{ delay_minutes: 0, targets: [{ type: 'integration', uuid: hook }] }, { delay_minutes: 10, targets: [{ type: 'user', uuid: ann }, { type: 'integration', uuid: hook }] }] })).uuid;
  schedule = (await post('/v1/on-call-schedules', { name: 'Weekly', team: 'SRE', time_zone: 'Europe/Berlin', layers: [{ name: 'Weekly', users: [ann], rotation: { type: 'weekly', handoff_time: '09:00', start_date: '2026-06-01' } }] })).uuid;
  monitor = (await post('/v1/monitors', { name: 'Shop API', url: 'http://127.0.0.1:9/health', paused: true, escalation_policy: policy, request_headers: [{ name: 'X-Key', value: 'secret' }] })).uuid;
  paused = (await post('/v1/monitors', { name: 'Blog', url: 'http://127.0.0.1:9/blog', paused: true })).uuid;
  outage = (await post('/v2/outages', { description: 'Checkout broken', escalationPolicyUuid: policy })).outage.uuid;
  await post(`/v2/outages/${outage}/acknowledge`, { message: 'on it' });
  await p.advance(60_000);
  await post(`/v2/outages/${outage}/resolve`, {});
  // A monitor's outage, detected by checks (the manual clock drives them): down, acknowledged, up.
  target = await httpTarget(200);
  checkout = (await post('/v1/monitors', { name: 'Checkout', url: target.url, check_frequency: 30 })).uuid;
  await p.advance(5 * 60_000);
  target.respond(500);
  await p.advance(10 * 60_000);
  const open = (await p.core.outages.list({ status: 'ongoing', type: 'monitor' }, 0)).outages[0];
  assert.ok(open, 'the monitor outage opened');
  checkoutOutage = open.uuid;
  await p.advance(2 * 60_000);
  await post(`/v2/outages/${open.uuid}/acknowledge`, {});
  target.respond(200);
  await p.advance(10 * 60_000);
  assert.equal((await p.core.outages.get(open.uuid)).endAt !== null, true, 'the monitor outage resolved');
  writer = await connect(WRITE_TOKEN);
  reader = await connect(readToken);
});
after(async () => {
  await writer?.close();
  await reader?.close();
  await p.cleanup();
  await target?.stop();
});

describe('POST /v1/mcp (MCP, Streamable HTTP)', () => {
  test('tools/list names every tool of hyperping-go\'s recorded list (but the two Pharos does not serve) and delete_monitor, each with an input schema', async () => {
    const { tools } = await reader.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...RECORDED_TOOL_NAMES].sort());
    for (const t of tools) assert.equal(t.inputSchema.type, 'object', t.name);
    const create = tools.find((t) => t.name === 'create_monitor')!;
    assert.deepEqual(create.inputSchema.required, ['name', 'url']);
    const doc = (await (await fetch(`${p.url}/openapi.json`)).json()) as any;
    assert.ok(doc.paths['/v1/mcp'].post, '/openapi.json documents POST /v1/mcp');
  });

  test('hyperping-go\'s own requests (mcp_transport.go): initialize, then tools/call with MCP-Protocol-Version 2025-03-26 and no session; answered as plain JSON', async () => {
    const goPost = async (body: object, extra: Record<string, string> = {}) => {
      const res = await fetch(`${p.url}/v1/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${readToken}`, ...extra }, body: JSON.stringify(body) });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(res.headers.get('mcp-session-id'), null);
      return (await res.json()) as any;
    };
    const init = await goPost({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'hyperping-go', version: '0.7.1' } } });
    assert.equal(init.result.protocolVersion, '2025-03-26');
    const called = await goPost({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_escalation_policies', arguments: {} } }, { 'MCP-Protocol-Version': '2025-03-26' });
    assert.equal(called.id, 2);
    assert.deepEqual(JSON.parse(called.result.content[0].text).map((x: any) => x.uuid), [policy]);
  });

  test('status, team, policies, integrations, schedules: hyperping-go\'s types, field by field, and the recorded hosted answers\' keys', async () => {
    const summary = await call('get_status_summary', {}, reader);
    assertDecodes(summary, mcp.get_status_summary, 'hyperping-go StatusSummary');
    sameKeys(summary, recorded.get_status_summary, 'get_status_summary');
    assert.deepEqual(summary, { total: 3, up: 1, down: 0, paused: 2, unknown: 0, down_monitors: [], paused_monitors: ['Shop API', 'Blog'] });

    const team = await call('list_team_members', {}, reader);
    assertDecodes(team, arr(mcp.team_member), 'hyperping-go []TeamMember');
    sameKeys(team, recorded.list_team_members, 'list_team_members', ['profilePictureUrl']);
    assert.ok(team.some((m: any) => m.email === 'ann@example.com' && m.accountRole === 'editor'));

    const policies = await call('list_escalation_policies', {}, reader);
    assertDecodes(policies, arr(mcp.get_escalation_policy), 'hyperping-go []EscalationPolicy');
    sameKeys(policies, recorded.list_escalation_policies, 'list_escalation_policies');
    const one = await call('get_escalation_policy', { uuid: policy }, reader);
    assertDecodes(one, mcp.get_escalation_policy, 'hyperping-go EscalationPolicy');
    assert.deepEqual(
      one.steps.map((s: any) => [s.delay, s.target_type]),
      [[0, 'integration'], [10, 'user'], [10, 'integration']],
    );
    assert.equal(one.team, 'SRE');

    const integrations = await call('list_integrations', {}, reader);
    assertDecodes(integrations, arr(mcp.get_integration), 'hyperping-go []Integration');
    sameKeys(integrations, recorded.list_integrations, 'list_integrations');
    const integration = await call('get_integration', { uuid: hook }, reader);
    assertDecodes(integration, mcp.get_integration, 'hyperping-go Integration');
    assert.deepEqual([integration.name, integration.type, integration.enabled], ['ops-hook', 'webhook', true]);

    const schedules = await call('list_on_call_schedules', {}, reader);
    assertDecodes(schedules, { k: 'object', fields: { schedules: arr(mcp.get_on_call_schedule) } }, 'hyperping-go {schedules: []OnCallSchedule}');
    sameKeys(schedules, recorded.list_on_call_schedules, 'list_on_call_schedules');
    const sched = await call('get_on_call_schedule', { uuid: schedule }, reader);
    assertDecodes(sched, mcp.get_on_call_schedule, 'hyperping-go OnCallSchedule');
    assert.equal(sched.name, 'Weekly');
    assert.match(sched.current_oncall, /^user_/);
  });

  test('monitors: list, get, search (hyperping-go Monitor and MonitorDetails); create, update, pause, resume, delete with a write token', async () => {
    const list = await call('list_monitors', {}, reader);
    assertDecodes(list, mcp.list_monitors, 'hyperping-go MonitorList');
    assert.deepEqual([list.total, list.page, list.limit], [3, 1, 50]);
    assert.equal((await call('list_monitors', { status: 'paused', limit: 1, page: 2 }, reader)).monitors[0].name, 'Blog');
    assert.equal((await call('list_monitors', { status: 'down' }, reader)).total, 0);

    const details = await call('get_monitor', { uuid: monitor }, reader);
    assertDecodes(details, mcp.get_monitor, 'hyperping-go MonitorDetails');
    assert.deepEqual(
      { status: details.status, method: details.method, frequency: details.frequency, expected_status: details.expected_status, escalation_policy: details.escalation_policy, custom_headers: details.custom_headers },
      { status: 'paused', method: 'GET', frequency: 30, expected_status: 200, escalation_policy: policy, custom_headers: { 'X-Key': '***' } },
    );
    const found = await call('search_monitors_by_name', { query: 'shop' }, reader);
    assertDecodes(found, mcp.search_monitors_by_name, 'hyperping-go []Monitor');
    assert.deepEqual(found.map((m: any) => m.uuid), [monitor]);

    const made = await call('create_monitor', { name: 'Docs', url: 'http://127.0.0.1:9/docs', paused: true, check_frequency: 300, expected_status_code: 204, group_id: 7 });
    assertDecodes(made, mcp.get_monitor, 'hyperping-go MonitorDetails (create_monitor)');
    assert.deepEqual([made.frequency, made.expected_status, made.status], [300, 204, 'paused']);
    assert.equal((await p.api(`/v1/monitors/${made.uuid}`).then((r) => r.json())).group, '7');
    const updated = await call('update_monitor', { uuid: made.uuid, name: 'Docs site', http_method: 'HEAD' });
    assertDecodes(updated, mcp.get_monitor, 'hyperping-go MonitorDetails (update_monitor)');
    assert.deepEqual([updated.name, updated.method], ['Docs site', 'HEAD']);
    assert.equal((await call('resume_monitor', { uuid: made.uuid })).status, 'up');
    assert.equal((await call('pause_monitor', { uuid: made.uuid })).status, 'paused');
    await call('delete_monitor', { uuid: made.uuid });
    assert.equal((await p.api(`/v1/monitors/${made.uuid}`)).status, 404);

    const bad = (await writer.callTool({ name: 'create_monitor', arguments: { name: 'X', url: 'http://x', check_frequency: 7 } })) as any;
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /check_frequency: must be one of/);
    const missing = (await reader.callTool({ name: 'get_monitor', arguments: { uuid: 'mon_nope' } })) as any;
    assert.equal(missing.isError, true);
    assert.match(missing.content[0].text, /not found/i);
  });

  test('a read token cannot call a write tool: a JSON-RPC error, nothing created; it may call read tools', async () => {
    await assert.rejects(reader.callTool({ name: 'create_monitor', arguments: { name: 'Nope', url: 'http://127.0.0.1:9/nope' } }), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32001);
      assert.match(e.message, /read scope/);
      return true;
    });
    await assert.rejects(reader.callTool({ name: 'delete_monitor', arguments: { uuid: monitor } }), /read scope/);
    assert.equal((await p.core.monitors.list()).length, 3);
    // Without a token: the API's 401.
    const res = await fetch(`${p.url}/v1/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(res.status, 401);
    // A plain JSON client (Accept: application/json only) is answered; a body that is not JSON-RPC gets the API's {error, message}.
    const plain = async (body: string) => fetch(`${p.url}/v1/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${readToken}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body });
    const listed = await plain('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_status_summary","arguments":{}}}');
    assert.equal(listed.status, 200);
    assert.equal(JSON.parse(((await listed.json()) as any).result.content[0].text).total, 3);
    const garbage = await plain('{"nope":');
    assert.equal(garbage.status, 400);
    const err = (await garbage.json()) as any;
    assert.equal(err.error, err.message);
    assert.match(err.message, /Parse error/);
    // Stateless: no session stream to open or end.
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${p.url}/v1/mcp`, { method, headers: { Authorization: `Bearer ${WRITE_TOKEN}`, Accept: 'text/event-stream' } });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.get('allow'), 'POST');
    }
    // The hosted tools Pharos does not serve.
    const anomalies = (await reader.callTool({ name: 'get_monitor_anomalies', arguments: { uuid: monitor } }).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }))) as any;
    assert.equal(anomalies.isError, true);
    assert.match(anomalies.content[0].text, /Tool get_monitor_anomalies not found/);
  });

  test('outages: list, get, a monitor\'s, the timeline, recent alerts (hyperping-go MCPOutage, OutageList, OutageTimeline, AlertHistory)', async () => {
    const list = await call('list_outages', {}, reader);
    assertDecodes(list, mcpOutageList, 'hyperping-go OutageList');
    assert.equal(list.total, 2);
    const o = await call('get_outage', { uuid: outage }, reader);
    assertDecodes(o, mcp.get_outage, 'hyperping-go MCPOutage');
    assert.deepEqual([o.status, o.duration, o.started_at], ['resolved', 60, '2026-06-03T10:00:00.000Z']);
    assert.equal((await call('get_monitor_outages', { monitor_uuid: monitor }, reader)).total, 0);
    const ofMonitor = await call('get_monitor_outages', { monitor_uuid: checkout }, reader);
    assertDecodes(ofMonitor, mcpOutageList, 'hyperping-go OutageList (get_monitor_outages)');
    assert.deepEqual(ofMonitor.outages.map((x: any) => [x.monitor_uuid, x.status]), [[checkout, 'resolved']]);
    const timeline = await call('get_outage_timeline', { uuid: outage }, reader);
    assertDecodes(timeline, mcp.get_outage_timeline, 'hyperping-go OutageTimeline');
    assert.deepEqual(timeline.events.map((e: any) => e.status).filter((s: string) => s !== 'alerted' && s !== 'escalated'), ['started', 'acknowledged', 'resolved']);
    assert.equal(timeline.events.find((e: any) => e.status === 'acknowledged').note, 'on it');
    const alerts = await call('list_recent_alerts', { resolution: 'day' }, reader);
    assertDecodes(alerts, mcp.list_recent_alerts, 'hyperping-go AlertHistory');
    sameKeys(alerts, recorded.list_recent_alerts, 'list_recent_alerts');
    assert.deepEqual([alerts.totalAlerts, alerts.downAlerts, alerts.upAlerts, alerts.timeGroups.length], [4, 2, 2, 30]);
  });

  test('reports: uptime, response time, MTTA, MTTR over a window (hyperping-go MonitorUptimeResponse, MonitorResponseTimeResponse, MonitorMttaResponse, MonitorMttrResponse)', async () => {
    const window = { from: '2026-06-01T00:00:00Z', to: '2026-06-03T00:00:00Z', monitor_uuids: [monitor] };
    const uptime = await call('get_monitor_uptime', window, reader);
    assertDecodes(uptime, mcp.get_monitor_uptime, 'hyperping-go MonitorUptimeResponse');
    assert.deepEqual(uptime.monitors.map((m: any) => [m.uuid, m.averageUptime, m.uptimePeriods.length]), [[monitor, 100, 2]]);
    assert.equal(uptime.averageUptime, '100%');
    const rt = await call('get_monitor_response_time', window, reader);
    assertDecodes(rt, mcp.get_monitor_response_time, 'hyperping-go MonitorResponseTimeResponse');
    assert.equal(rt.monitors.length, 1);
    const checks = await call('get_monitor_response_time', { monitor_uuids: [checkout], resolution: 'hour' }, reader);
    assertDecodes(checks, mcp.get_monitor_response_time, 'hyperping-go MonitorResponseTimeResponse (with checks)');
    assert.ok(checks.monitors[0].count > 0 && checks.timeGroups.length > 0, JSON.stringify(checks));
    const mtta = await call('get_monitor_mtta', {}, reader);
    assertDecodes(mtta, mcp.get_monitor_mtta, 'hyperping-go MonitorMttaResponse');
    assert.deepEqual(mtta.monitors.map((m: any) => [m.uuid, m.acknowledged]), [[checkout, 1]]);
    assert.equal(mtta.totalAcknowledged, 1);
    const acked = await p.core.outages.get(checkoutOutage);
    assert.equal(mtta.mtta, Math.floor((acked.acknowledgedAt! - acked.startAt) / 1000));
    const mttr = await call('get_monitor_mttr', {}, reader);
    assertDecodes(mttr, mcp.get_monitor_mttr, 'hyperping-go MonitorMttrResponse');
    assert.equal(mttr.monitors.length, 3);
    const ofCheckout = mttr.monitors.find((m: any) => m.uuid === checkout);
    assert.equal(ofCheckout.outageCount, 1);
    assert.equal(ofCheckout.mtta, mtta.mtta);
    assert.ok(mttr.mttr > 0);
  });
});
