import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { ChannelConfig, ChannelType } from '../../../src/config/schema.ts';
import { CHANNEL_TYPES } from '../../../src/domain/channels/index.ts';
import { CHANNELS, ChannelError, createChannel, createChannels, type AlertKind, type AlertMessage, type Channel, type ChannelPlugin } from '../../../src/alerting/channels/index.ts';

// Real receivers on 127.0.0.1: an HTTP server for the HTTP channels, smtp-server for email.
// The contract suite runs over the registry (CHANNELS) itself: a new kind cannot skip it.

const MONITOR = { uuid: 'mon_x', name: 'API', url: 'https://api.example.com', protocol: 'http' };
const CAUSE = 'Expected 200, got 503';
const STARTED = '2025-03-04T05:06:07.000Z';
const LINK = 'https://pharos.example.com/outages/out_1';
const DELIVERY = { deliveryId: 'dlv_test1' };
const SECRET_PATH = '/services/SECRET123';

function message(kind: AlertKind = 'alert', over: Partial<AlertMessage> = {}): AlertMessage {
  return {
    kind,
    title: kind === 'recovery' ? 'RECOVERED: API after 4m 10s' : 'DOWN: API (https://api.example.com)',
    text: `API is down since ${STARTED}: ${CAUSE}.`,
    outage: {
      uuid: 'out_1',
      incidentNumber: 42,
      description: CAUSE,
      severity: 'major',
      startDate: STARTED,
      endDate: kind === 'recovery' ? '2025-03-04T05:10:17.000Z' : null,
      durationMs: 250_000,
      monitor: MONITOR,
    },
    escalation: { policyUuid: 'ep_default', policyName: 'Default', step: 1, totalSteps: 2, repeat: 0 },
    link: LINK,
    createdAt: '2025-03-04T05:07:00.000Z',
    ...over,
  };
}

// ---- receivers -------------------------------------------------------------------------------

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const http = { status: 200, hang: false, requests: [] as Received[] };
const httpServer = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    http.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    if (!http.hang) res.writeHead(http.status, { 'content-type': 'text/plain' }).end(`answer ${http.status}`);
  });
});
await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
const httpPort = (httpServer.address() as AddressInfo).port;

interface Mail {
  raw: string;
  rcptTo: string[];
}
const smtp = { reject: (_address: string): number => 0, mails: [] as Mail[], passwords: [] as string[] };
const smtpServer = new SMTPServer({
  authOptional: true,
  allowInsecureAuth: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth(auth, _session, cb) {
    smtp.passwords.push(auth.password ?? '');
    cb(null, { user: auth.username });
  },
  onRcptTo(address, _session, cb) {
    const code = smtp.reject(address.address);
    if (code === 0) return cb();
    cb(Object.assign(new Error(code >= 500 ? 'No such user here' : 'Try again later'), { responseCode: code }));
  },
  onData(stream, session, cb) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      smtp.mails.push({ raw: Buffer.concat(chunks).toString('utf8'), rcptTo: session.envelope.rcptTo.map((a) => a.address) });
      cb();
    });
  },
});
await new Promise<void>((resolve) => smtpServer.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtpServer.server.address() as AddressInfo).port;

/** A port nothing listens on: bound, then released. */
const closedPort = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as AddressInfo;
    s.close(() => resolve(port));
  });
});

const opened: Channel[] = [];
const open = (config: ChannelConfig) => {
  const ch = createChannel(config);
  opened.push(ch);
  return ch;
};

after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  httpServer.closeAllConnections();
  await new Promise((resolve) => httpServer.close(resolve));
  await new Promise((resolve) => smtpServer.close(() => resolve(undefined)));
});

function reset() {
  http.status = 200;
  http.hang = false;
  http.requests = [];
  smtp.reject = () => 0;
  smtp.mails = [];
  smtp.passwords = [];
}

/** Undoes quoted-printable soft breaks and `=XX` escapes (fixtures are ASCII). */
const decodeQp = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

// ---- the contract, for every kind of the registry ----------------------------------------------

/**
 * What a receiver got, decoded to text (form bodies decoded; mails undone of quoted-printable). A
 * `process` kind (the apprise CLI) is pointed at the HTTP receiver, so it is read like HTTP.
 */
function deliveries(plugin: ChannelPlugin<ChannelType>): string[] {
  if (plugin.transport === 'smtp') return smtp.mails.map((m) => decodeQp(m.raw));
  return http.requests.map((r) => (String(r.headers['content-type']).startsWith('application/x-www-form-urlencoded') ? [...new URLSearchParams(r.body).values()].join('\n') : r.body));
}
const baseOf = (plugin: ChannelPlugin<ChannelType>, port?: number) =>
  plugin.transport === 'smtp' ? `smtp://127.0.0.1:${port ?? smtpPort}` : `http://127.0.0.1:${port ?? httpPort}`;
const fail = (plugin: ChannelPlugin<ChannelType>, how: 'retryable' | 'permanent') => {
  if (plugin.transport === 'smtp') smtp.reject = () => (how === 'retryable' ? 451 : 550);
  else http.status = how === 'retryable' ? 500 : 400;
};

test('the contract suite covers every kind of the schema registry', () => {
  assert.deepEqual(Object.keys(CHANNELS), CHANNEL_TYPES);
});

for (const type of CHANNEL_TYPES) {
  const plugin = CHANNELS[type] as unknown as ChannelPlugin<ChannelType>;
  const config = (port?: number) => plugin.example(`ops-${type}`, baseOf(plugin, port)) as ChannelConfig;
  describe(`channel contract: ${type}`, () => {
    const rejectsWith = async (ch: Channel, permanent: boolean) => {
      let caught: unknown;
      await ch.send(message(), DELIVERY).catch((e: unknown) => (caught = e));
      assert.ok(caught instanceof ChannelError, `expected a ChannelError, got ${String(caught)}`);
      assert.equal(caught.permanent, permanent, caught.message);
      for (const s of plugin.secrets) assert.ok(!caught.message.includes(s), `message leaks a secret: ${caught.message}`);
      return caught;
    };

    test('the example config is valid for its schema', async () => {
      const { ChannelConfig: schema } = await import('../../../src/domain/channels/index.ts');
      const parsed = schema.safeParse(config());
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      assert.ok(plugin.secrets.length > 0, 'names its secrets');
    });

    test('delivers a message once, naming the monitor, cause and console link, with the idempotency id, and returns the answer', async () => {
      reset();
      const ch = open(config());
      assert.equal(ch.name, `ops-${type}`);
      const answer = await ch.send(message(), DELIVERY);
      const got = deliveries(plugin);
      assert.equal(got.length, 1);
      for (const needle of [MONITOR.name, CAUSE, LINK]) assert.ok(got[0]!.includes(needle), `delivery lacks ${needle}: ${got[0]}`);
      if (plugin.transport === 'http') {
        assert.match(String(http.requests[0]!.headers['idempotency-key']), /^dlv_test1/);
        assert.deepEqual(answer, { status: 200, body: 'answer 200' });
      } else if (plugin.transport === 'process') {
        // The program's exit code and its log (a CLI sends no idempotency header of ours).
        assert.equal(answer.status, 0);
        assert.ok(answer.body.length > 0, 'the log is the answer');
      } else {
        assert.match(smtp.mails[0]!.raw, /^X-Pharos-Delivery: dlv_test1\r?$/m);
        assert.equal(answer.status, 250);
      }
    });

    test('renders every kind of message (alert, recovery, acknowledge, notice)', async () => {
      reset();
      const ch = open(config());
      for (const kind of ['alert', 'recovery', 'acknowledge', 'notice'] as const) {
        await ch.send(message(kind, kind === 'notice' ? { outage: null, escalation: null, link: null } : {}), DELIVERY);
      }
      assert.equal(deliveries(plugin).length, 4);
    });

    test('a server error is retryable', async () => {
      reset();
      fail(plugin, 'retryable');
      await rejectsWith(open(config()), false);
    });

    test('a client error is permanent', async () => {
      reset();
      fail(plugin, 'permanent');
      const err = await rejectsWith(open(config()), true);
      if (plugin.transport === 'http') assert.deepEqual(err.answer, { status: 400, body: 'answer 400' });
      if (plugin.transport === 'process') assert.match(err.answer?.body ?? '', /400/);
    });

    test('connection refused is retryable and names no secret', async () => {
      reset();
      const err = await rejectsWith(open(config(closedPort)), false);
      assert.match(err.message, plugin.transport === 'process' ? /connection error/i : /connection refused/);
      assert.ok(err.message.includes('127.0.0.1'), err.message);
    });
  });
}

// ---- webhook ---------------------------------------------------------------------------------

describe('webhook channel', () => {
  const config = (over: Partial<Extract<ChannelConfig, { type: 'webhook' }>> = {}): ChannelConfig => ({
    name: 'hook',
    type: 'webhook',
    url: `http://127.0.0.1:${httpPort}/hook`,
    headers: {},
    timeout_seconds: 5,
    ...over,
  });

  test('payload: event per kind, the message fields as is', async () => {
    reset();
    const ch = open(config());
    const events = { alert: 'outage.alert', recovery: 'outage.recovery', acknowledge: 'outage.acknowledged', notice: 'pharos.notice' } as const;
    for (const kind of ['alert', 'recovery', 'acknowledge', 'notice'] as const) {
      const m = message(kind, kind === 'notice' ? { outage: null, escalation: null, link: null } : {});
      await ch.send(m, DELIVERY);
      const r = http.requests.at(-1)!;
      assert.equal(r.method, 'POST');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['user-agent'], 'Pharos');
      assert.equal(r.headers['idempotency-key'], DELIVERY.deliveryId);
      assert.deepEqual(JSON.parse(r.body), { event: events[kind], deliveryId: DELIVERY.deliveryId, title: m.title, text: m.text, outage: m.outage, escalation: m.escalation, link: m.link, createdAt: m.createdAt });
    }
  });

  test('a Mustache body template: variables escaped as JSON, sections by kind, nothing inherited', async () => {
    reset();
    const template = '{"text":"{{title}} ({{outage.description}})","id":"{{deliveryId}}"{{#isRecovery}},"ok":true{{/isRecovery}},"x":"{{constructor}}{{title.constructor}}{{#constructor.constructor}}boom{{/constructor.constructor}}"}';
    const ch = open(config({ body_template: template }));
    const m = message('alert');
    await ch.send({ ...m, outage: { ...m.outage!, description: 'say "hi"\n<b>' } }, DELIVERY);
    const r = http.requests[0]!;
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(r.body), { text: `${m.title} (say "hi"\n<b>)`, id: DELIVERY.deliveryId, x: '' });
    await ch.send(message('recovery'), DELIVERY);
    assert.equal(JSON.parse(http.requests[1]!.body).ok, true);
  });

  test('a template with another content type escapes HTML', async () => {
    reset();
    await open(config({ body_template: 'alert={{title}}&x={{{title}}}', content_type: 'text/plain' })).send(message('alert', { title: 'a<b' }), DELIVERY);
    assert.equal(http.requests[0]!.headers['content-type'], 'text/plain');
    assert.equal(http.requests[0]!.body, 'alert=a&lt;b&x=a<b');
  });

  test('signs the raw body with HMAC-SHA256 when a secret is set', async () => {
    reset();
    await open(config({ secret: 'shh', headers: { Authorization: 'Bearer t0k' } })).send(message(), DELIVERY);
    const r = http.requests[0]!;
    const ts = String(r.headers['x-pharos-timestamp']);
    assert.match(ts, /^\d+$/);
    assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 60);
    const expected = `sha256=${createHmac('sha256', 'shh').update(`${ts}.${r.body}`).digest('hex')}`;
    assert.equal(r.headers['x-pharos-signature'], expected);
    assert.equal(r.headers['authorization'], 'Bearer t0k');
  });

  test('no signature headers without a secret', async () => {
    reset();
    await open(config()).send(message(), DELIVERY);
    assert.equal(http.requests[0]!.headers['x-pharos-signature'], undefined);
    assert.equal(http.requests[0]!.headers['x-pharos-timestamp'], undefined);
  });

  test('maps statuses: 3xx ok; 408, 429, 503 retryable; 401, 404 permanent', async () => {
    const ch = open(config());
    for (const [status, outcome] of [[301, 'ok'], [408, 'retry'], [429, 'retry'], [503, 'retry'], [401, 'permanent'], [404, 'permanent']] as const) {
      reset();
      http.status = status;
      const err = await ch.send(message(), DELIVERY).then(() => null, (e: unknown) => e);
      if (outcome === 'ok') assert.equal(err, null, `HTTP ${status}`);
      else {
        assert.ok(err instanceof ChannelError, `HTTP ${status}`);
        assert.equal(err.permanent, outcome === 'permanent', `HTTP ${status}`);
        assert.equal(err.message, `webhook hook: HTTP ${status}`);
      }
    }
  });

  test('a receiver that never answers is a retryable timeout', async () => {
    reset();
    http.hang = true;
    const err = await open(config({ timeout_seconds: 1 })).send(message(), DELIVERY).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ChannelError);
    assert.equal(err.permanent, false);
    assert.equal(err.message, `webhook hook: timeout after 1 s (127.0.0.1:${httpPort})`);
  });
});

// ---- Slack and Teams -------------------------------------------------------------------------

describe('slack channel', () => {
  test('sends text and blocks, escaping & < > in user strings', async () => {
    reset();
    const ch = open({ name: 's', type: 'slack', url: `http://127.0.0.1:${httpPort}${SECRET_PATH}`, timeout_seconds: 5 });
    const m = message('alert');
    await ch.send({ ...m, outage: { ...m.outage!, description: 'a < b & c > d' } }, DELIVERY);
    const body = JSON.parse(http.requests[0]!.body) as { text: string; blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[] };
    assert.equal(body.text, 'DOWN: API (https://api.example.com)');
    assert.deepEqual(body.blocks[0], { type: 'header', text: { type: 'plain_text', text: 'DOWN: API (https://api.example.com)', emoji: true } });
    const fields = body.blocks.flatMap((b) => b.fields ?? []).map((f) => f.text);
    assert.ok(fields.includes('*Cause*\na &lt; b &amp; c &gt; d'), fields.join(' | '));
    assert.ok(fields.includes('*Monitor*\n<https://api.example.com|API>'), fields.join(' | '));
    assert.ok(body.blocks.some((b) => b.text?.text === `<${LINK}|Open in Pharos>`));
  });

  test('no link block when link is null', async () => {
    reset();
    await open({ name: 's', type: 'slack', url: `http://127.0.0.1:${httpPort}/x`, timeout_seconds: 5 }).send(message('notice', { outage: null, escalation: null, link: null }), DELIVERY);
    const body = JSON.parse(http.requests[0]!.body) as { blocks: { type: string }[] };
    assert.deepEqual(body.blocks.map((b) => b.type), ['header', 'section']);
  });
});

describe('teams channel', () => {
  type Card = { contentType: string; contentUrl: null; content: { type: string; version: string; body: { type: string; color?: string; facts?: { title: string; value: string }[] }[]; actions: unknown[] } };
  const send = async (m: AlertMessage) => {
    reset();
    await open({ name: 't', type: 'teams', url: `http://127.0.0.1:${httpPort}/workflows?sig=x`, timeout_seconds: 5 }).send(m, DELIVERY);
    return JSON.parse(http.requests[0]!.body) as { type: string; attachments: Card[] };
  };

  test('sends an Adaptive Card with title color, facts and an Open action', async () => {
    const msg = await send(message('alert'));
    assert.equal(msg.type, 'message');
    const card = msg.attachments[0]!;
    assert.equal(card.contentType, 'application/vnd.microsoft.card.adaptive');
    assert.equal(card.contentUrl, null);
    assert.equal(card.content.type, 'AdaptiveCard');
    assert.equal(card.content.version, '1.4');
    assert.equal(card.content.body[0]!.color, 'Attention');
    const facts = card.content.body.find((b) => b.type === 'FactSet')!.facts!;
    assert.deepEqual(facts.slice(0, 4), [
      { title: 'Monitor', value: 'API (https://api.example.com)' },
      { title: 'Cause', value: CAUSE },
      { title: 'Started', value: STARTED },
      { title: 'Incident', value: 'INC-42 (major)' },
    ]);
    assert.deepEqual(card.content.actions, [{ type: 'Action.OpenUrl', title: 'Open in Pharos', url: LINK }]);
  });

  test('recovery is green; no actions without a link', async () => {
    const card = (await send(message('recovery', { link: null }))).attachments[0]!;
    assert.equal(card.content.body[0]!.color, 'Good');
    assert.deepEqual(card.content.actions, []);
  });
});

// ---- email -----------------------------------------------------------------------------------

describe('email channel', () => {
  const config = (port: number) => CHANNELS.email.example('ops-email', `smtp://127.0.0.1:${port}`);

  test('mails every recipient with subject, text and escaped HTML, after logging in', async () => {
    reset();
    const m = message('alert');
    await open(config(smtpPort)).send({ ...m, outage: { ...m.outage!, description: `<script>alert("x's")</script> & co` } }, DELIVERY);
    assert.equal(smtp.mails.length, 1);
    const mail = smtp.mails[0]!;
    assert.deepEqual(mail.rcptTo, ['oncall@example.com', 'team@example.com']);
    assert.deepEqual(smtp.passwords, CHANNELS.email.secrets);
    const raw = decodeQp(mail.raw);
    assert.match(raw, /^Subject: \[Pharos\] DOWN: API \(https:\/\/api\.example\.com\)\r?$/m);
    assert.match(raw, /^To: oncall@example\.com, team@example\.com\r?$/m);
    assert.ok(raw.includes('Incident: INC-42 (major)'));
    assert.ok(raw.includes(`Link: ${LINK}`));
    assert.ok(raw.includes('&lt;script&gt;alert(&quot;x&#39;s&quot;)&lt;/script&gt; &amp; co'), 'HTML part escapes the cause');
    assert.ok(raw.includes(`<a href="${LINK}">`));
  });

  test('a partly rejected recipient list is a permanent error naming the rejected address', async () => {
    reset();
    smtp.reject = (address) => (address === 'team@example.com' ? 550 : 0);
    const err = await open(config(smtpPort)).send(message(), DELIVERY).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ChannelError);
    assert.equal(err.permanent, true);
    assert.match(err.message, /delivered to 1 of 2 recipients; rejected team@example\.com/);
    assert.equal(smtp.mails.length, 1);
  });
});

// ---- registry --------------------------------------------------------------------------------

describe('channel registry', () => {
  test('builds channels by name', async () => {
    const channels = createChannels(CHANNEL_TYPES.map((t) => (CHANNELS[t] as unknown as ChannelPlugin<ChannelType>).example(`ops-${t}`, `http://127.0.0.1:${httpPort}`) as ChannelConfig));
    assert.deepEqual([...channels.keys()], CHANNEL_TYPES.map((t) => `ops-${t}`));
    await Promise.all([...channels.values()].map((c) => c.close()));
  });

  test('refuses two channels with one name', () => {
    const c = CHANNELS.webhook.example('hook', `http://127.0.0.1:${httpPort}`);
    assert.throws(() => createChannels([c, c]), /used twice/);
  });
});

// ---- documentation ---------------------------------------------------------------------------

describe('channel documentation', () => {
  test('docs/operations.md has a config example for every kind of the registry, valid for its schema', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('yaml');
    const { ChannelConfig: schema } = await import('../../../src/domain/channels/index.ts');
    const doc = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Alert channels'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!.replace(/\$\{(\w+)\}/g, (_, v: string) => (v.includes('URL') ? 'https://example.com/x' : v.endsWith('_SID') ? `AC${'0'.repeat(32)}` : `${v.toLowerCase()}-value`));
    const entries = (parse(yaml) as { channels: unknown[] }).channels;
    const types = entries.map((e) => schema.parse(e).type);
    assert.deepEqual([...types].sort(), [...CHANNEL_TYPES].sort());
  });
});
