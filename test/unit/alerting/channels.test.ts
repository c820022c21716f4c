import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { ChannelConfig, ChannelType } from '../../../src/config/schema.ts';
import { CHANNEL_FACTORIES, ChannelError, createChannel, createChannels, type AlertKind, type AlertMessage, type Channel } from '../../../src/alerting/channels/index.ts';

// Real receivers on 127.0.0.1: an HTTP server for webhook/Slack/Teams, smtp-server for email.

const MONITOR = { uuid: 'mon_x', name: 'API', url: 'https://api.example.com', protocol: 'http' };
const CAUSE = 'Expected 200, got 503';
const STARTED = '2025-03-04T05:06:07.000Z';
const LINK = 'https://status.example.com/outages/out_1';
const SECRET_PATH = '/services/SECRET123';
const SMTP_PASSWORD = 'hunter2-SECRET-pw';

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
    escalation: { policyUuid: 'ep_default', policyName: 'Default', step: 1, totalSteps: 2 },
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

// ---- the contract, for every kind ------------------------------------------------------------

interface KindUnderTest {
  type: ChannelType;
  config(port: number): ChannelConfig;
  /** Makes the receiver fail the next delivery: `retryable` (HTTP 500 / SMTP 451) or `permanent` (HTTP 400 / SMTP 550). */
  fail(how: 'retryable' | 'permanent'): void;
  /** What arrived, decoded to text. */
  deliveries(): string[];
  /** Strings that must never appear in an error message. */
  secrets: string[];
}

const httpUrl = (port: number) => `http://127.0.0.1:${port}${SECRET_PATH}?sig=SECRET456`;
const httpKind = (type: 'webhook' | 'slack' | 'teams'): KindUnderTest => ({
  type,
  config: (port) =>
    type === 'webhook'
      ? { name: `ops-${type}`, type, url: httpUrl(port), headers: {}, timeout_seconds: 5 }
      : { name: `ops-${type}`, type, url: httpUrl(port), timeout_seconds: 5 },
  fail: (how) => void (http.status = how === 'retryable' ? 500 : 400),
  deliveries: () => http.requests.map((r) => r.body),
  secrets: [SECRET_PATH, 'SECRET123', 'SECRET456'],
});

/** A fixture per registered kind: a kind added to CHANNEL_FACTORIES fails to compile here until it has one. */
const FIXTURES = {
  webhook: httpKind('webhook'),
  slack: httpKind('slack'),
  teams: httpKind('teams'),
  email: {
    type: 'email',
    config: (port) => ({
      name: 'ops-email',
      type: 'email',
      from: 'Pharos <pharos@example.com>',
      to: ['oncall@example.com', 'team@example.com'],
      smtp: { host: '127.0.0.1', port, secure: false, require_tls: false, tls_reject_unauthorized: true, user: 'pharos', password: SMTP_PASSWORD, timeout_seconds: 5 },
    }),
    fail: (how) => void (smtp.reject = () => (how === 'retryable' ? 451 : 550)),
    deliveries: () => smtp.mails.map((m) => decodeQp(m.raw)),
    secrets: [SMTP_PASSWORD],
  },
} satisfies { [K in keyof typeof CHANNEL_FACTORIES]: KindUnderTest };

// The contract runs over the registry itself, never over a hand-written list of kinds.
const KINDS: KindUnderTest[] = (Object.keys(CHANNEL_FACTORIES) as Array<keyof typeof CHANNEL_FACTORIES>).map((type) => FIXTURES[type]);

const receiverPort = (type: ChannelType) => (type === 'email' ? smtpPort : httpPort);

for (const kind of KINDS) {
  describe(`channel contract: ${kind.type}`, () => {
    const rejectsWith = async (ch: Channel, permanent: boolean) => {
      let caught: unknown;
      await ch.send(message()).catch((e: unknown) => (caught = e));
      assert.ok(caught instanceof ChannelError, `expected a ChannelError, got ${String(caught)}`);
      assert.equal(caught.permanent, permanent, caught.message);
      for (const s of kind.secrets) assert.ok(!caught.message.includes(s), `message leaks a secret: ${caught.message}`);
      return caught;
    };

    test('delivers a message once, naming the monitor, cause, start time and link', async () => {
      reset();
      const ch = open(kind.config(receiverPort(kind.type)));
      assert.equal(ch.name, `ops-${kind.type}`);
      await ch.send(message());
      const got = kind.deliveries();
      assert.equal(got.length, 1);
      for (const needle of [MONITOR.name, CAUSE, STARTED, LINK]) assert.ok(got[0]!.includes(needle), `delivery lacks ${needle}`);
    });

    test('a server error is retryable', async () => {
      reset();
      kind.fail('retryable');
      await rejectsWith(open(kind.config(receiverPort(kind.type))), false);
    });

    test('a client error is permanent', async () => {
      reset();
      kind.fail('permanent');
      await rejectsWith(open(kind.config(receiverPort(kind.type))), true);
    });

    test('connection refused is retryable and names no secret', async () => {
      reset();
      const err = await rejectsWith(open(kind.config(closedPort)), false);
      assert.match(err.message, /connection refused/);
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
    const events = { alert: 'outage.alert', recovery: 'outage.recovery', notice: 'pharos.notice' } as const;
    for (const kind of ['alert', 'recovery', 'notice'] as const) {
      const m = message(kind, kind === 'notice' ? { outage: null, escalation: null, link: null } : {});
      await ch.send(m);
      const r = http.requests.at(-1)!;
      assert.equal(r.method, 'POST');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['user-agent'], 'Pharos');
      assert.deepEqual(JSON.parse(r.body), { event: events[kind], title: m.title, text: m.text, outage: m.outage, escalation: m.escalation, link: m.link, createdAt: m.createdAt });
    }
  });

  test('signs the raw body with HMAC-SHA256 when a secret is set', async () => {
    reset();
    await open(config({ secret: 'shh', headers: { Authorization: 'Bearer t0k' } })).send(message());
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
    await open(config()).send(message());
    assert.equal(http.requests[0]!.headers['x-pharos-signature'], undefined);
    assert.equal(http.requests[0]!.headers['x-pharos-timestamp'], undefined);
  });

  test('maps statuses: 3xx ok; 408, 429, 503 retryable; 401, 404 permanent', async () => {
    const ch = open(config());
    for (const [status, outcome] of [[301, 'ok'], [408, 'retry'], [429, 'retry'], [503, 'retry'], [401, 'permanent'], [404, 'permanent']] as const) {
      reset();
      http.status = status;
      const err = await ch.send(message()).then(() => null, (e: unknown) => e);
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
    const err = await open(config({ timeout_seconds: 1 })).send(message()).then(() => null, (e: unknown) => e);
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
    await ch.send({ ...m, outage: { ...m.outage!, description: 'a < b & c > d' } });
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
    await open({ name: 's', type: 'slack', url: `http://127.0.0.1:${httpPort}/x`, timeout_seconds: 5 }).send(message('notice', { outage: null, escalation: null, link: null }));
    const body = JSON.parse(http.requests[0]!.body) as { blocks: { type: string }[] };
    assert.deepEqual(body.blocks.map((b) => b.type), ['header', 'section']);
  });
});

describe('teams channel', () => {
  type Card = { contentType: string; contentUrl: null; content: { type: string; version: string; body: { type: string; color?: string; facts?: { title: string; value: string }[] }[]; actions: unknown[] } };
  const send = async (m: AlertMessage) => {
    reset();
    await open({ name: 't', type: 'teams', url: `http://127.0.0.1:${httpPort}/workflows?sig=x`, timeout_seconds: 5 }).send(m);
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
  const config = KINDS.find((k) => k.type === 'email')!.config;

  test('mails every recipient with subject, text and escaped HTML, after logging in', async () => {
    reset();
    const m = message('alert');
    await open(config(smtpPort)).send({ ...m, outage: { ...m.outage!, description: `<script>alert("x's")</script> & co` } });
    assert.equal(smtp.mails.length, 1);
    const mail = smtp.mails[0]!;
    assert.deepEqual(mail.rcptTo, ['oncall@example.com', 'team@example.com']);
    assert.deepEqual(smtp.passwords, [SMTP_PASSWORD]);
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
    const err = await open(config(smtpPort)).send(message()).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ChannelError);
    assert.equal(err.permanent, true);
    assert.match(err.message, /delivered to 1 of 2 recipients; rejected team@example\.com/);
    assert.equal(smtp.mails.length, 1);
  });
});

// ---- registry --------------------------------------------------------------------------------

describe('channel registry', () => {
  test('has one factory per channel type and builds channels by name', async () => {
    assert.deepEqual(Object.keys(CHANNEL_FACTORIES).sort(), ['email', 'slack', 'teams', 'webhook']);
    const channels = createChannels(KINDS.map((k) => k.config(receiverPort(k.type))));
    assert.deepEqual([...channels.keys()], ['ops-webhook', 'ops-slack', 'ops-teams', 'ops-email']);
    await Promise.all([...channels.values()].map((c) => c.close()));
  });

  test('refuses two channels with one name', () => {
    const c = KINDS[0]!.config(httpPort);
    assert.throws(() => createChannels([c, c]), /used twice/);
  });
});
