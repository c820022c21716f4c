import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPharos, type TestPharos } from '../support/pharos.ts';
import { httpReceiver } from '../support/receivers.ts';
import { setupAdmin, signIn, type ConsoleClient } from '../support/console.ts';

// The console's Integrations and Escalation policies pages (issue 32 point 3) over plain HTTP, as a
// browser with JavaScript off uses them: forms generated from the registry's schemas post and
// redirect; refusals come back with the message beside the field it names. Both stores
// (PHAROS_TEST_DRIVER=postgres).
const TOKEN = 'tk-SECRET-5f2a9c';
let p: TestPharos;
let admin: ConsoleClient;
let editor: ConsoleClient;
let rx: Awaited<ReturnType<typeof httpReceiver>>;

before(async () => {
  rx = await httpReceiver();
  p = await startTestPharos({
    channels: [{ name: 'yaml-hook', type: 'webhook', url: 'http://127.0.0.1:9/yaml' }],
    escalation_policies: [{ uuid: 'ep_yaml', name: 'From YAML', steps: [{ after_minutes: 0, channels: ['yaml-hook'] }] }],
  });
  admin = await setupAdmin(p);
  await p.core.accounts.create({ email: 'eddie@example.com', role: 'editor', password: 'editor password 1' }, { type: 'system', id: 'test', name: 'test' });
  editor = await signIn(p, 'eddie@example.com', 'editor password 1');
});
after(async () => {
  await p.cleanup();
  await rx.close();
});

const location = (res: Response) => res.headers.get('location') ?? '';
const uuidIn = (res: Response, prefix: string) => new RegExp(`(${prefix}_[0-9A-Za-z]+)`).exec(location(res))?.[1] ?? '';
const unescape = (s: string) => s.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const errorFor = (html: string, field: string) => {
  const m = new RegExp(`data-error-for="${field.replace(/[.[\]]/g, '\\$&')}">([^<]*)<`).exec(html)?.[1];
  return m === undefined ? undefined : unescape(m);
};
const ntfyForm = (over: Record<string, string> = {}) => ({ kind: 'ntfy', name: 'phone', enabled: 'on', 'settings.server': rx.url, 'settings.topic': 'pharos-alerts', 'settings.priority': '5', 'settings.tags': 'pharos\nprod', 'settings.token': TOKEN, 'settings.timeout_seconds': '5', ...over });

describe('Integrations', () => {
  let ntfy = '';

  test('navigation and Settings link to the pages; Settings no longer says "No channel is configured"', async () => {
    const settings = await admin.get('/settings');
    assert.equal(settings.status, 200);
    assert.match(settings.html, /<a href="\/integrations"[^>]*>Integrations<\/a>/);
    assert.match(settings.html, /<a href="\/escalation-policies"[^>]*>Escalation polic/);
    assert.doesNotMatch(settings.html, /No channel is configured/);
  });

  test('add: pick a kind, then its form generated from the schema (labels, defaults, required, secrets as password inputs)', async () => {
    const pick = await admin.get('/integrations/new');
    assert.equal(pick.status, 200);
    for (const kind of ['ntfy', 'webhook', 'email', 'apprise']) assert.match(pick.html, new RegExp(`<option value="${kind}">`));
    const form = await admin.get('/integrations/new?kind=ntfy');
    assert.equal(form.status, 200);
    assert.match(form.html, /Topic[\s\S]{0,200}<input type="text" name="settings.topic" value="" required=""/);
    assert.match(form.html, /<input type="text" name="settings.server" value="https:\/\/ntfy.sh"/, 'the default of the schema');
    assert.match(form.html, /name="settings.priority" value="4"/);
    assert.match(form.html, /Timeout \(seconds\)/);
    assert.match(form.html, /Priority[\s\S]{0,200}class="muted small help"> Priority of alerts, 1 \(min\) to 5 \(max\)/, "the schema's description as help");
    assert.match(form.html, /Token[\s\S]{0,200}secret[\s\S]{0,200}<input type="password" name="settings.token" value=""/);
    const email = await admin.get('/integrations/new?kind=email');
    assert.match(email.html, /<legend>Smtp|<legend>SMTP/);
    assert.match(email.html, /name="settings.smtp.host"/);
    assert.match(email.html, /<input type="password" name="settings.smtp.password"/);
    assert.match(email.html, /<input type="checkbox" name="settings.smtp.tls_reject_unauthorized" checked=""/);
  });

  test('validation: each refusal names its field, shown beside it, nothing stored', async () => {
    const noTopic = await admin.post('/integrations', ntfyForm({ 'settings.topic': '' }));
    assert.equal(noTopic.status, 400);
    assert.match(errorFor(noTopic.html, 'settings.topic') ?? '', /\S/, noTopic.html.slice(0, 2000));
    assert.match(noTopic.html, /role="alert">settings\.topic: /);
    const badPriority = await admin.post('/integrations', ntfyForm({ 'settings.priority': 'loud' }));
    assert.equal(badPriority.status, 400);
    assert.ok(errorFor(badPriority.html, 'settings.priority'));
    assert.match(badPriority.html, /value="loud"/, 'what was typed is shown again');
    const noName = await admin.post('/integrations', ntfyForm({ name: '' }));
    assert.equal(errorFor(noName.html, 'name'), 'must not be empty');
    const badPort = await admin.post('/integrations', { kind: 'email', name: 'mail', 'settings.from': 'pharos@example.com', 'settings.to': 'ops@example.com', 'settings.smtp.host': 'smtp.example.com', 'settings.smtp.port': '99999' });
    assert.equal(badPort.status, 400);
    assert.ok(errorFor(badPort.html, 'settings.smtp.port'), badPort.html.slice(0, 3000));
    assert.equal((await p.core.integrations.list()).filter((i) => !i.provisioned).length, 0);
  });

  test('created: redirect with a flash message; the token is sealed and shown as ***', async () => {
    const res = await admin.post('/integrations', ntfyForm());
    assert.equal(res.status, 303, res.html.slice(0, 2000));
    ntfy = uuidIn(res, 'int');
    assert.match(location(res), /\?done=created$/);
    const pageRes = await admin.get(location(res));
    assert.match(pageRes.html, /id="notice">Integration added/);
    assert.match(pageRes.html, /<input type="password" name="settings.token" value="\*\*\*"/);
    assert.ok(!pageRes.html.includes(TOKEN), 'the page never shows the secret');
    const stored = await p.core.integrations.plaintextSettings(ntfy);
    assert.deepEqual(stored, { server: rx.url, topic: 'pharos-alerts', priority: 5, tags: ['pharos', 'prod'], token: TOKEN, timeout_seconds: 5 });
    const list = await admin.get('/integrations');
    assert.match(list.html, new RegExp(`id="integration-${ntfy}" data-name="phone" data-enabled="true"`));
  });

  test('edit: *** left as it is keeps the stored token; a cleared optional field is removed; the audit names the person', async () => {
    const page = await admin.get(`/integrations/${ntfy}`);
    assert.equal(page.status, 200);
    const kept = await admin.post(`/integrations/${ntfy}`, ntfyForm({ 'settings.token': '***', 'settings.topic': 'pharos-ops' }));
    assert.equal(kept.status, 303, kept.html.slice(0, 2000));
    assert.match(location(kept), /\?done=saved$/);
    let stored = await p.core.integrations.plaintextSettings(ntfy);
    assert.equal(stored.token, TOKEN);
    assert.equal(stored.topic, 'pharos-ops');
    const cleared = await admin.post(`/integrations/${ntfy}`, ntfyForm({ 'settings.token': '', 'settings.tags': '' }));
    assert.equal(cleared.status, 303);
    stored = await p.core.integrations.plaintextSettings(ntfy);
    assert.equal(stored.token, undefined, 'a cleared optional secret is removed');
    assert.deepEqual(stored.tags, [], 'cleared tags fall back to the default');
    const again = await admin.post(`/integrations/${ntfy}`, ntfyForm());
    assert.equal(again.status, 303);
    const entries = (await p.core.auditLog.page({ resourceUuid: ntfy }, 10, null)).entries;
    assert.ok(entries.length >= 3);
    assert.ok(entries.every((e) => e.actor.type === 'user' && e.actor.name === 'admin@example.com'));
    assert.ok(!JSON.stringify(entries).includes(TOKEN), 'the audit diff masks the token');
  });

  test('send test: the provider gets it and its answer shows on the page; last test recorded; admins only', async () => {
    const res = await admin.post(`/integrations/${ntfy}/test`, {});
    assert.equal(res.status, 200, res.html.slice(0, 2000));
    assert.match(res.html, /id="test-result"[^>]*>\s*<p>Test delivered to phone\.<\/p>/);
    assert.match(res.html, /data-answer="alert">alert: the provider answered HTTP 200/);
    assert.match(res.html, /<pre>ok<\/pre>/, "the provider's body");
    const got = rx.received.at(-1)!;
    assert.equal(got.path, '/');
    const body = JSON.parse(got.body);
    assert.equal(body.topic, 'pharos-alerts');
    assert.equal(got.headers.authorization, `Bearer ${TOKEN}`);
    assert.match((await admin.get(`/integrations/${ntfy}`)).html, /id="last-test">[^<]*ok/);
    assert.match((await admin.get('/integrations')).html, /ago: ok/);
    const n = rx.received.length;
    assert.equal((await editor.post(`/integrations/${ntfy}/test`, {})).status, 403);
    assert.equal(rx.received.length, n, "an editor's test is not sent");
  });

  test('disable and enable', async () => {
    const off = await admin.post(`/integrations/${ntfy}/disable`, {});
    assert.equal(off.status, 303);
    assert.equal((await p.core.integrations.get(ntfy)).enabled, false);
    assert.match((await admin.get(location(off))).html, /id="notice">Disabled/);
    assert.equal((await admin.post(`/integrations/${ntfy}/enable`, {})).status, 303);
    assert.equal((await p.core.integrations.get(ntfy)).enabled, true);
  });

  test('provisioned (config.yaml): badge, read-only form, changes refused with a clear message', async () => {
    const yaml = (await p.core.integrations.getByName('yaml-hook'))!;
    const list = await admin.get('/integrations');
    assert.match(list.html, new RegExp(`id="integration-${yaml.uuid}"[\\s\\S]{0,300}from config.yaml`));
    const page = await admin.get(`/integrations/${yaml.uuid}`);
    assert.match(page.html, /Declared in config.yaml: read-only here/);
    assert.doesNotMatch(page.html, />Save</);
    assert.doesNotMatch(page.html, /Delete…/);
    assert.match(page.html, /<input type="password" name="settings.url" value="\*\*\*"[^>]*readonly/);
    const edit = await admin.post(`/integrations/${yaml.uuid}`, { kind: 'webhook', name: 'renamed', 'settings.url': '***' });
    assert.equal(edit.status, 409);
    assert.match(edit.html, /role="alert">integration &quot;yaml-hook&quot; is declared in config.yaml/);
    assert.equal((await admin.post(`/integrations/${yaml.uuid}/disable`, {})).status, 409);
    assert.equal((await p.core.integrations.get(yaml.uuid)).name, 'yaml-hook');
  });
});

describe('Escalation policies', () => {
  let policy = '';
  let ntfy = '';
  const monitors: string[] = [];

  before(async () => {
    ntfy = (await p.core.integrations.getByName('phone'))!.uuid;
    for (const name of ['api', 'web', 'db', 'cache']) {
      const res = await p.api('/v1/monitors', { method: 'POST', json: { name, url: 'http://127.0.0.1:9/', check_frequency: 600, paused: true } });
      monitors.push((await res.json()).uuid);
    }
  });

  test('step editor: "Add step" and "Remove" come back with one step more or less, nothing saved', async () => {
    const form = await admin.get('/escalation-policies/new');
    assert.match(form.html, /name="step_0_delay"/);
    assert.match(form.html, new RegExp(`name="step_0_targets" value="${ntfy}"`));
    const added = await admin.post('/escalation-policies', { name: 'Ops', steps: '1', step_0_delay: '0', step_0_targets: ntfy, repeat_count: '0', op: 'add-step' });
    assert.equal(added.status, 200);
    assert.match(added.html, /name="step_1_delay" value="10"/);
    assert.match(added.html, new RegExp(`name="step_0_targets" value="${ntfy}" checked=""`), 'what was ticked stays ticked');
    const removed = await admin.post('/escalation-policies', { name: 'Ops', steps: '2', step_0_delay: '0', step_1_delay: '10', op: 'remove-0' });
    assert.doesNotMatch(removed.html, /name="step_1_delay"/);
    assert.match(removed.html, /name="step_0_delay" value="10"/);
    assert.equal((await p.core.escalationPolicies.list()).length, 1, 'only the config.yaml policy');
  });

  test('validation names the step and the field', async () => {
    const bad = await admin.post('/escalation-policies', { name: 'Ops', steps: '2', step_0_delay: '10', step_0_targets: ntfy, step_1_delay: '5', step_1_targets: ntfy, repeat_count: '0', op: 'save' });
    assert.equal(bad.status, 400);
    assert.equal(errorFor(bad.html, 'step_1_delay'), "must not be less than the previous step's");
    assert.match(bad.html, /role="alert">steps\[1\]\.delay_minutes: /);
    const words = await admin.post('/escalation-policies', { name: 'Ops', steps: '1', step_0_delay: 'soon', repeat_count: 'x', op: 'save' });
    assert.ok(errorFor(words.html, 'step_0_delay'));
  });

  test('create a two-step policy; attach it to three monitors and a healthcheck at once', async () => {
    const res = await admin.post('/escalation-policies', { name: 'Ops', team: 'SRE', steps: '2', step_0_delay: '0', step_0_targets: ntfy, step_1_delay: '15', step_1_targets: ntfy, repeat_count: '2', repeat_every_minutes: '30', op: 'save' });
    assert.equal(res.status, 303, res.html.slice(0, 2000));
    policy = uuidIn(res, 'ep');
    const p1 = await p.core.escalationPolicies.get(policy);
    assert.deepEqual(p1.steps, [
      { delayMinutes: 0, targets: [{ type: 'integration', uuid: ntfy }] },
      { delayMinutes: 15, targets: [{ type: 'integration', uuid: ntfy }] },
    ]);
    assert.equal(p1.repeatCount, 2);
    assert.equal(p1.repeatEveryMinutes, 30);
    const hc = (await (await p.api('/v1/healthchecks', { method: 'POST', json: { name: 'backup', period_value: 1, period_type: 'days', grace_period_value: 1, grace_period_type: 'hours' } })).json()).healthcheck;
    const page = await admin.get(`/escalation-policies/${policy}`);
    assert.match(page.html, new RegExp(`name="monitors" value="${monitors[0]}"`));
    assert.match(page.html, new RegExp(`name="healthchecks" value="${hc.publicUuid}"`));
    const attach = await admin.post(`/escalation-policies/${policy}/attach`, { monitors: monitors.slice(0, 3), healthchecks: [hc.publicUuid] });
    assert.equal(attach.status, 303, attach.html.slice(0, 2000));
    assert.match((await admin.get(location(attach))).html, /id="notice">Attached to 3 monitors and 1 healthcheck\./);
    for (const [i, uuid] of monitors.entries()) assert.equal((await p.core.monitors.get(uuid)).escalationPolicyUuid, i < 3 ? policy : null);
    const after = await admin.get(`/escalation-policies/${policy}`);
    assert.match(after.html, new RegExp(`name="monitors" value="${monitors[0]}" checked="" disabled=""`), 'attached ones show as attached');
    const audit = (await p.core.auditLog.page({ resourceUuid: monitors[0] }, 10, null)).entries;
    assert.ok(audit.some((e) => e.actor.type === 'user' && 'escalation_policy' in e.diff));
    const unknown = await admin.post(`/escalation-policies/${policy}/attach`, { monitors: ['mon_nope'] });
    assert.equal(unknown.status, 400);
    assert.match(unknown.html, /monitors\[0\]: no monitor &quot;mon_nope&quot;/);
  });

  test('delete an integration: the confirmation lists the policies using it; core refuses (409) with a clear message', async () => {
    const confirm = await admin.get(`/integrations/${ntfy}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, new RegExp(`id="used-by"[\\s\\S]*<a href="/escalation-policies/${policy}">Ops</a>`));
    const refused = await admin.post(`/integrations/${ntfy}/delete`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.html, /role="alert">integration &quot;phone&quot; is used by escalation policy &quot;Ops&quot;/);
    await p.core.integrations.get(ntfy);
    // An unused one goes, after its confirmation.
    const spare = await admin.post('/integrations', ntfyForm({ name: 'spare' }));
    const spareUuid = uuidIn(spare, 'int');
    assert.match((await admin.get(`/integrations/${spareUuid}/delete`)).html, /No escalation policy uses it/);
    const gone = await admin.post(`/integrations/${spareUuid}/delete`, {});
    assert.equal(gone.status, 303);
    assert.equal(location(gone), '/integrations?done=deleted');
    assert.equal(await p.core.integrations.getByName('spare'), undefined);
  });

  test('a policy in use is not deleted (409 shown); provisioned policies are read-only but can be attached', async () => {
    const refused = await admin.post(`/escalation-policies/${policy}/delete`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.html, /role="alert">escalation policy &quot;Ops&quot; is used by monitor/);
    const yaml = await admin.get('/escalation-policies/ep_yaml');
    assert.match(yaml.html, /from config.yaml/);
    assert.doesNotMatch(yaml.html, /Save policy|Add step|Delete policy/);
    const edit = await admin.post('/escalation-policies/ep_yaml', { name: 'Changed', steps: '1', step_0_delay: '0', op: 'save' });
    assert.equal(edit.status, 409);
    assert.match(edit.html, /declared in config.yaml/);
    const attach = await admin.post('/escalation-policies/ep_yaml/attach', { monitors: [monitors[3]!] });
    assert.equal(attach.status, 303);
    assert.equal((await p.core.monitors.get(monitors[3]!)).escalationPolicyUuid, 'ep_yaml');
    const list = await admin.get('/escalation-policies');
    assert.match(list.html, new RegExp(`id="policy-${policy}" data-name="Ops"[\\s\\S]{0,400}0 min: phone · 15 min: phone`));
  });
});
