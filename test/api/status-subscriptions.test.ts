import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpReceiver } from '../support/receivers.ts';
import { statusFixture, type StatusFixture } from '../support/status-fixture.ts';

// Subscriptions of a status page end to end: the form, mails caught by a real SMTP server, links
// followed over HTTP, Slack/Teams webhooks to a real HTTP receiver, notices for incidents and
// maintenance windows (manual clock).
const MIN = 60_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
async function setup(page: Record<string, unknown> = {}): Promise<StatusFixture> {
  // Subscriber webhooks go to a loopback receiver here: the unsafe switch allows it (subscription-hardening.test.ts shows the default refuses).
  const f = await statusFixture(page, { public_url: 'https://status.example.com', status_pages: { subscriptions: { allow_private_targets: true } } });
  cleanups.push(() => f.close());
  return f;
}
const form = (f: StatusFixture, path: string, fields: Record<string, string>) =>
  fetch(`${f.p.url}/status/acme${path}`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
/** Mail bodies are quoted-printable: undo soft line breaks and =XX escapes. */
const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
/** The page-relative path of a link to this page found in a mail (the public URL's host is not the test server). */
const linkIn = (raw: string, kind: 'confirm' | 'unsubscribe') => {
  const m = new RegExp(`https://status\\.example\\.com(/status/acme/subscribe/${kind}\\?s=[^\\s"<&]+&(?:amp;)?t=[A-Za-z0-9_-]+)`).exec(decoded(raw));
  assert.ok(m, `no ${kind} link in:\n${raw}`);
  return m[1]!.replace('&amp;', '&');
};

describe('status page subscriptions', () => {
  test('email double opt-in: confirm link, notices for incidents, unsubscribe link in every mail', async () => {
    const f = await setup();
    const { p, smtp } = f;
    const page = await (await fetch(`${p.url}/status/acme`)).text();
    assert.match(page, /href="\/status\/acme\/subscribe"/);
    const bad = await form(f, '/subscribe', { channel: 'email', target: 'not-an-address' });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /target: must be an email address/);
    const ok = await form(f, '/subscribe', { channel: 'email', target: 'Reader@Example.com' });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /Check your inbox/);
    await p.advance(0);
    assert.equal(smtp.mails.length, 1);
    const mail = smtp.mails[0]!;
    assert.deepEqual(mail.to, ['reader@example.com']);
    assert.match(mail.raw, /Subject: \[Pharos\] Confirm your subscription to Acme Status/);
    linkIn(mail.raw, 'unsubscribe');

    // Nothing is sent to an unconfirmed address.
    await p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Too early' }, type: 'incident', statuspages: [f.page.uuid] } });
    await p.advance(0);
    assert.equal(smtp.mails.length, 1);

    const confirm = linkIn(mail.raw, 'confirm');
    const shown = await fetch(p.url + confirm);
    assert.equal(shown.status, 200);
    assert.match(await shown.text(), /<form[^>]*method="post"[\s\S]*Confirm subscription/);
    const params = new URL(confirm, p.url).searchParams;
    assert.equal((await form(f, '/subscribe/confirm', { s: params.get('s')!, t: `${params.get('t')!.slice(0, -1)}x` })).status, 404, 'a forged token');
    const done = await form(f, '/subscribe/confirm', { s: params.get('s')!, t: params.get('t')! });
    assert.equal(done.status, 200);
    assert.match(await done.text(), /subscription is confirmed/);

    const inc = await (await p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'Checkout errors' }, type: 'outage', statuspages: [f.page.uuid], updates: [{ text: { en: 'We are looking into it' }, type: 'investigating' }] } })).json();
    await p.api(`/v3/incidents/${inc.uuid}/updates`, { method: 'POST', json: { text: { en: 'All good again' }, type: 'resolved' } });
    await p.advance(0);
    const notices = smtp.mails.slice(1).map((m) => decoded(m.raw));
    assert.equal(notices.length, 2);
    assert.match(notices[0]!, /Subject: \[Pharos\] \[Acme Status\] New incident: Checkout errors/);
    assert.match(notices[0]!, /investigating: We are looking into it/);
    assert.match(notices[1]!, /Subject: \[Pharos\] \[Acme Status\] Resolved: Checkout errors/);
    const unsubscribe = linkIn(smtp.mails.at(-1)!.raw, 'unsubscribe');
    const u = new URL(unsubscribe, p.url).searchParams;
    assert.equal((await form(f, '/subscribe/unsubscribe', { s: u.get('s')!, t: u.get('t')! })).status, 200);
    await p.api('/v3/incidents', { method: 'POST', json: { title: { en: 'After unsubscribe' }, type: 'incident', statuspages: [f.page.uuid] } });
    await p.advance(0);
    assert.equal(smtp.mails.length, 3, 'nothing after unsubscribing');
    assert.equal((await form(f, '/subscribe/unsubscribe', { s: u.get('s')!, t: u.get('t')! })).status, 404, 'a used unsubscribe link');
  });

  test('Slack and Teams webhooks; maintenance notices immediate and scheduled; subscriptions off → 404', async () => {
    const hooks = await httpReceiver();
    cleanups.push(hooks.close);
    const f = await setup({ subscribe: { enabled: true, email: false, slack: true, teams: true } });
    const { p } = f;
    assert.equal((await form(f, '/subscribe', { channel: 'email', target: 'a@example.com' })).status, 400, 'email is not offered on this page');
    assert.equal((await form(f, '/subscribe', { channel: 'slack', target: `${hooks.url}/slack` })).status, 200);
    assert.equal((await form(f, '/subscribe', { channel: 'teams', target: `${hooks.url}/teams` })).status, 200);
    await p.advance(0);
    assert.match(hooks.delivered('/slack')[0].text, /Subscribed to Acme Status/);
    assert.equal(hooks.delivered('/teams').length, 1);

    const now = p.clock.now();
    const window = (option: string, startMin: number) => ({
      name: `${option} window`,
      title: { en: `${option} upgrade` },
      start_date: new Date(now + startMin * MIN).toISOString(),
      end_date: new Date(now + (startMin + 60) * MIN).toISOString(),
      monitors: [f.ids.web],
      statuspages: [f.page.uuid],
      notificationOption: option,
      notificationMinutes: 30,
    });
    assert.equal((await p.api('/v1/maintenance-windows', { method: 'POST', json: window('immediate', 120) })).status, 201);
    assert.equal((await p.api('/v1/maintenance-windows', { method: 'POST', json: window('scheduled', 120) })).status, 201);
    await p.advance(0);
    const slackTexts = () => hooks.delivered('/slack').map((m: { text: string }) => m.text);
    assert.equal(slackTexts().length, 2);
    assert.match(slackTexts()[1]!, /Scheduled maintenance: immediate upgrade/);
    await p.advance(89 * MIN);
    assert.equal(slackTexts().length, 2, 'not before start − 30 min');
    await p.advance(1 * MIN);
    assert.equal(slackTexts().length, 3);
    assert.match(slackTexts()[2]!, /Scheduled maintenance: scheduled upgrade/);
    assert.equal(hooks.delivered('/teams').length, 3);
    const upcoming = await (await fetch(`${p.url}/status/acme`)).text();
    assert.match(upcoming, /Scheduled maintenance[\s\S]*immediate upgrade/);

    await p.api(`/v2/statuspages/${f.page.uuid}`, { method: 'PUT', json: { name: 'Acme Status', subscribe: { enabled: false } } });
    assert.equal((await fetch(`${p.url}/status/acme/subscribe`)).status, 404);
    assert.ok(!(await (await fetch(`${p.url}/status/acme`)).text()).includes('/subscribe"'));
  });
});
