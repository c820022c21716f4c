import { test, describe, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelConfig } from '../../../src/domain/channels/index.ts';
import { createChannel, type AlertKind, type AlertMessage, type Channel } from '../../../src/alerting/channels/index.ts';

// The exact request of each provider channel, against a real HTTP receiver on 127.0.0.1 that
// answers like the provider (status and body per path).

const LINK = 'https://pharos.example.com/outages/outage_1';
const MONITOR = { uuid: 'mon_x', name: 'API', url: 'https://api.example.com', protocol: 'http' };
const DELIVERY = { deliveryId: 'dlv_abc' };

function message(kind: AlertKind = 'alert'): AlertMessage {
  return {
    kind,
    title: kind === 'recovery' ? 'RECOVERED: API (https://api.example.com) after 4m 10s' : kind === 'acknowledge' ? 'ACKNOWLEDGED: API (https://api.example.com)' : 'DOWN: API (https://api.example.com)',
    text: 'Expected 200, got 503. Down since 2025-03-04T05:06:07.000Z (INC-42, major).',
    outage: {
      uuid: 'outage_1',
      incidentNumber: 42,
      description: 'Expected 200, got 503',
      severity: 'major',
      startDate: '2025-03-04T05:06:07.000Z',
      endDate: kind === 'recovery' ? '2025-03-04T05:10:17.000Z' : null,
      durationMs: 250_000,
      monitor: MONITOR,
    },
    escalation: kind === 'alert' ? { policyUuid: 'ep_team', policyName: 'Team', step: 2, totalSteps: 2, repeat: 1 } : null,
    link: LINK,
    createdAt: '2025-03-04T05:07:00.000Z',
  };
}

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const rx = { requests: [] as Received[], answer: { status: 200, body: '{"ok":true}' } };
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    rx.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(rx.answer.status, { 'content-type': 'application/json' }).end(rx.answer.body);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const BASE = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  rx.requests = [];
  rx.answer = { status: 200, body: '{"ok":true}' };
});

/** Parses a config entry as config.yaml would (defaults, Apprise URLs) and opens the channel. */
function channel(raw: Record<string, unknown>): Channel {
  const ch = createChannel(ChannelConfig.parse({ name: 'ops', timeout_seconds: 5, ...raw }));
  opened.push(ch);
  return ch;
}
const last = () => {
  const r = rx.requests.at(-1)!;
  return { ...r, json: r.headers['content-type']?.startsWith('application/json') ? JSON.parse(r.body) : null };
};

describe('discord', () => {
  test('POSTs one embed to the webhook with wait=true; mentions disabled', async () => {
    rx.answer = { status: 200, body: '{"id":"1"}' };
    const answer = await channel({ type: 'discord', url: `${BASE}/api/webhooks/42/tok`, username: 'Pharos' }).send(message(), DELIVERY);
    assert.deepEqual(answer, { status: 200, body: '{"id":"1"}' });
    const r = last();
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/api/webhooks/42/tok?wait=true');
    assert.deepEqual(r.json, {
      username: 'Pharos',
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: 'DOWN: API (https://api.example.com)',
          description: message().text,
          url: LINK,
          color: 0xd93025,
          fields: [
            { name: 'Monitor', value: 'API (https://api.example.com)', inline: true },
            { name: 'Cause', value: 'Expected 200, got 503', inline: false },
            { name: 'Started', value: '2025-03-04T05:06:07.000Z', inline: true },
            { name: 'Incident', value: 'INC-42 (major)', inline: true },
            { name: 'Escalation', value: 'Team, step 2 of 2, repeat 1', inline: true },
            { name: 'Link', value: LINK, inline: false },
          ],
          timestamp: '2025-03-04T05:07:00.000Z',
          footer: { text: 'Pharos' },
        },
      ],
    });
  });
});

describe('telegram', () => {
  test('Bot API sendMessage with chat id, topic and escaped HTML', async () => {
    const m = message();
    m.outage!.description = 'a < b & c';
    await channel({ type: 'telegram', bot_token: '123:ABC', chat_id: -100123, topic_id: 7, api_url: BASE }).send(m, DELIVERY);
    const r = last();
    assert.equal(r.path, '/bot123:ABC/sendMessage');
    assert.equal(r.json.chat_id, '-100123');
    assert.equal(r.json.message_thread_id, 7);
    assert.equal(r.json.parse_mode, 'HTML');
    assert.deepEqual(r.json.link_preview_options, { is_disabled: true });
    assert.ok(r.json.text.startsWith('<b>DOWN: API (https://api.example.com)</b>\n\n'), r.json.text);
    assert.ok(r.json.text.includes('<b>Cause:</b> a &lt; b &amp; c'), r.json.text);
    assert.ok(r.json.text.endsWith(`\n<a href="${LINK}">Open in Pharos</a>`), r.json.text);
  });
});

describe('ntfy', () => {
  test('publishes JSON to the server root with the bearer token, priority, tags and click link', async () => {
    await channel({ type: 'ntfy', server: `${BASE}/`, topic: 'alerts', priority: 5, tags: ['prod'], token: 'tk_1' }).send(message(), DELIVERY);
    const r = last();
    assert.equal(r.path, '/');
    assert.equal(r.headers.authorization, 'Bearer tk_1');
    assert.deepEqual({ ...r.json, message: undefined }, { topic: 'alerts', title: 'DOWN: API (https://api.example.com)', message: undefined, priority: 5, tags: ['rotating_light', 'prod'], click: LINK });
    assert.ok(r.json.message.includes('Cause: Expected 200, got 503'));
    await channel({ type: 'ntfy', server: BASE, topic: 'alerts' }).send(message('recovery'), DELIVERY);
    assert.equal(last().headers.authorization, undefined);
    assert.equal(last().json.priority, 3);
    assert.deepEqual(last().json.tags, ['white_check_mark']);
  });
});

describe('gotify', () => {
  test('POST /message with X-Gotify-Key and the click extra', async () => {
    await channel({ type: 'gotify', server: `${BASE}/gotify`, token: 'AppTok' }).send(message(), DELIVERY);
    const r = last();
    assert.equal(r.path, '/gotify/message');
    assert.equal(r.headers['x-gotify-key'], 'AppTok');
    assert.equal(r.json.priority, 8);
    assert.equal(r.json.title, 'DOWN: API (https://api.example.com)');
    assert.deepEqual(r.json.extras, { 'client::display': { contentType: 'text/plain' }, 'client::notification': { click: { url: LINK } } });
  });
});

describe('pushover', () => {
  test('POST /1/messages.json with token, user, priority and the link', async () => {
    await channel({ type: 'pushover', user_key: 'uKEY', app_token: 'aTOK', device: 'phone', api_url: BASE }).send(message(), DELIVERY);
    const r = last();
    assert.equal(r.path, '/1/messages.json');
    const { message: text, ...rest } = r.json;
    assert.deepEqual(rest, { token: 'aTOK', user: 'uKEY', title: 'DOWN: API (https://api.example.com)', priority: 1, timestamp: Date.parse('2025-03-04T05:07:00.000Z') / 1000, url: LINK, url_title: 'Open in Pharos', device: 'phone' });
    assert.ok(String(text).includes('Monitor: API (https://api.example.com)'));
  });
});

describe('matrix', () => {
  test('PUT m.room.message with the delivery id as transaction id and a bearer token', async () => {
    await channel({ type: 'matrix', homeserver: BASE, room_id: '!ops:example.org', access_token: 'syt_x' }).send(message(), DELIVERY);
    const r = last();
    assert.equal(r.method, 'PUT');
    assert.equal(r.path, '/_matrix/client/v3/rooms/!ops%3Aexample.org/send/m.room.message/dlv_abc');
    assert.equal(r.headers.authorization, 'Bearer syt_x');
    assert.equal(r.json.msgtype, 'm.text');
    assert.equal(r.json.format, 'org.matrix.custom.html');
    assert.ok(r.json.body.startsWith('DOWN: API (https://api.example.com)\n\n'));
    assert.ok(r.json.formatted_body.includes(`<a href="${LINK}">`));
  });
});

describe('mattermost', () => {
  test('POSTs one attachment to the incoming webhook', async () => {
    await channel({ type: 'mattermost', url: `${BASE}/hooks/xyz`, channel: 'ops' }).send(message(), DELIVERY);
    const r = last();
    assert.equal(r.path, '/hooks/xyz');
    assert.equal(r.json.channel, 'ops');
    const [a] = r.json.attachments;
    assert.equal(a.title, 'DOWN: API (https://api.example.com)');
    assert.equal(a.title_link, LINK);
    assert.equal(a.color, '#d93025');
    assert.deepEqual(a.fields[0], { title: 'Monitor', value: 'API (https://api.example.com)', short: true });
  });
});

describe('google chat', () => {
  test('POSTs text threaded by outage, keeping key and token in the query', async () => {
    await channel({ type: 'googlechat', url: `${BASE}/v1/spaces/AAA/messages?key=K&token=T` }).send(message(), DELIVERY);
    const r = last();
    assert.equal(r.path, '/v1/spaces/AAA/messages?key=K&token=T&messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
    assert.deepEqual(r.json.thread, { threadKey: 'outage_1' });
    assert.ok(r.json.text.startsWith('*DOWN: API (https://api.example.com)*\n'));
    assert.ok(r.json.text.endsWith(`<${LINK}|Open in Pharos>`));
  });
});

describe('pagerduty', () => {
  test('trigger, acknowledge and resolve share the outage uuid as dedup key', async () => {
    rx.answer = { status: 202, body: '{"status":"success","message":"Event processed","dedup_key":"outage_1"}' };
    const ch = channel({ type: 'pagerduty', routing_key: 'R0KEY', api_url: BASE });
    const answer = await ch.send(message('alert'), DELIVERY);
    assert.equal(answer.status, 202);
    const t = last();
    assert.equal(t.path, '/v2/enqueue');
    assert.deepEqual(t.json, {
      routing_key: 'R0KEY',
      event_action: 'trigger',
      dedup_key: 'outage_1',
      payload: {
        summary: 'DOWN: API (https://api.example.com)',
        source: 'https://api.example.com',
        severity: 'error',
        timestamp: '2025-03-04T05:06:07.000Z',
        component: 'API',
        custom_details: {
          text: message().text,
          monitor: 'API (https://api.example.com)',
          cause: 'Expected 200, got 503',
          started: '2025-03-04T05:06:07.000Z',
          incident: 'INC-42 (major)',
          escalation: 'Team, step 2 of 2, repeat 1',
          link: LINK,
        },
      },
      links: [{ href: LINK, text: 'Open in Pharos' }],
      client: 'Pharos',
      client_url: LINK,
    });
    await ch.send(message('acknowledge'), DELIVERY);
    assert.deepEqual(last().json, { routing_key: 'R0KEY', event_action: 'acknowledge', dedup_key: 'outage_1' });
    await ch.send(message('recovery'), DELIVERY);
    assert.deepEqual(last().json, { routing_key: 'R0KEY', event_action: 'resolve', dedup_key: 'outage_1' });
  });
});

describe('opsgenie', () => {
  test('create, acknowledge and close by alias with a GenieKey', async () => {
    rx.answer = { status: 202, body: '{"result":"Request will be processed","took":0.1,"requestId":"r1"}' };
    const ch = channel({ type: 'opsgenie', api_key: 'gk', api_url: BASE, teams: ['ops'] });
    await ch.send(message('alert'), DELIVERY);
    const c = last();
    assert.equal(c.path, '/v2/alerts');
    assert.equal(c.headers.authorization, 'GenieKey gk');
    assert.equal(c.json.message, 'DOWN: API (https://api.example.com)');
    assert.equal(c.json.alias, 'outage_1');
    assert.equal(c.json.priority, 'P2');
    assert.equal(c.json.source, 'Pharos');
    assert.equal(c.json.entity, 'API');
    assert.equal(c.json.details.link, LINK);
    assert.deepEqual(c.json.responders, [{ type: 'team', name: 'ops' }]);
    await ch.send(message('acknowledge'), DELIVERY);
    assert.equal(last().path, '/v2/alerts/outage_1/acknowledge?identifierType=alias');
    assert.equal(last().json.source, 'Pharos');
    await ch.send(message('recovery'), DELIVERY);
    assert.equal(last().path, '/v2/alerts/outage_1/close?identifierType=alias');
    assert.equal(last().headers.authorization, 'GenieKey gk');
  });
});

describe('notices about something that ends (issue #30)', () => {
  const notice = (subject?: AlertMessage['subject']): AlertMessage => ({ kind: 'notice', title: 'Certificate expires in 5 days: API (api.example.com)', text: 'Renew it.', outage: null, escalation: null, link: null, createdAt: '2025-03-04T05:07:00.000Z', ...(subject ? { subject } : {}) });
  test('PagerDuty: triggered and resolved under the notice key; a one-off notice keyed by its delivery id', async () => {
    rx.answer = { status: 202, body: '{"status":"success"}' };
    const ch = channel({ type: 'pagerduty', routing_key: 'R0KEY', api_url: BASE });
    await ch.send(notice({ key: 'cert:mon_1:7', resolve: false }), DELIVERY);
    assert.deepEqual([last().json.event_action, last().json.dedup_key, last().json.payload.severity], ['trigger', 'cert:mon_1:7', 'info']);
    await ch.send(notice({ key: 'cert:mon_1:7', resolve: true }), DELIVERY);
    assert.deepEqual(last().json, { routing_key: 'R0KEY', event_action: 'resolve', dedup_key: 'cert:mon_1:7' });
    await ch.send(notice(), DELIVERY);
    assert.deepEqual([last().json.event_action, last().json.dedup_key], ['trigger', 'dlv_abc']);
  });
  test('Opsgenie: created under the notice key as alias, closed by alias', async () => {
    rx.answer = { status: 202, body: '{"result":"Request will be processed"}' };
    const ch = channel({ type: 'opsgenie', api_key: 'gk', api_url: BASE, teams: [] });
    await ch.send(notice({ key: 'flood:london', resolve: false }), DELIVERY);
    assert.deepEqual([last().path, last().json.alias, last().json.priority], ['/v2/alerts', 'flood:london', 'P5']);
    await ch.send(notice({ key: 'flood:london', resolve: true }), DELIVERY);
    assert.equal(last().path, '/v2/alerts/flood%3Alondon/close?identifierType=alias');
    assert.equal(last().json.note, 'Renew it.');
  });
});

describe('twilio', () => {
  const sid = `AC${'ab'.repeat(16)}`;
  test('one form-encoded Messages request per number, Basic auth', async () => {
    rx.answer = { status: 201, body: '{"sid":"SM1","status":"queued"}' };
    await channel({ type: 'twilio', account_sid: sid, auth_token: 'tok', from: '+15550001111', to: ['+15552223333', '+15554445555'], api_url: BASE }).send(message(), DELIVERY);
    assert.equal(rx.requests.length, 2);
    const r = rx.requests[0]!;
    assert.equal(r.path, `/2010-04-01/Accounts/${sid}/Messages.json`);
    assert.equal(r.headers.authorization, `Basic ${Buffer.from(`${sid}:tok`).toString('base64')}`);
    assert.equal(r.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(r.body)), { To: '+15552223333', From: '+15550001111', Body: `DOWN: API (https://api.example.com)\nExpected 200, got 503\n${LINK}` });
    assert.equal(new URLSearchParams(rx.requests[1]!.body).get('To'), '+15554445555');
  });
});
