import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelConfig } from '../../../src/domain/channels/index.ts';
import { ConfigSchema } from '../../../src/config/schema.ts';

// Apprise-style URLs expand to typed channel entries, validated by the kind's own schema.
const parse = (apprise: string) => ChannelConfig.parse({ name: 'x', apprise });

test('discord, tgram, ntfy, pover and mailto expand to their channels', () => {
  assert.deepEqual(parse('discord://1234/abcd-TOKEN'), { name: 'x', type: 'discord', url: 'https://discord.com/api/webhooks/1234/abcd-TOKEN', timeout_seconds: 10 });
  assert.deepEqual(parse('tgram://123456:ABC-def/-100987?topic=4'), { name: 'x', type: 'telegram', bot_token: '123456:ABC-def', chat_id: '-100987', topic_id: 4, api_url: 'https://api.telegram.org', timeout_seconds: 10 });
  assert.deepEqual(parse('ntfy://alerts'), { name: 'x', type: 'ntfy', server: 'https://ntfy.sh', topic: 'alerts', priority: 4, tags: [], timeout_seconds: 10 });
  assert.deepEqual(parse('ntfy://tk_1@ntfy.lan:8080/alerts?priority=5&tags=a,b'), { name: 'x', type: 'ntfy', server: 'http://ntfy.lan:8080', topic: 'alerts', priority: 5, tags: ['a', 'b'], token: 'tk_1', timeout_seconds: 10 });
  assert.equal((parse('ntfys://ntfy.example.com/alerts') as { server: string }).server, 'https://ntfy.example.com');
  assert.deepEqual(parse('pover://uKEY@aTOKEN/phone'), { name: 'x', type: 'pushover', user_key: 'uKEY', app_token: 'aTOKEN', device: 'phone', priority: 1, api_url: 'https://api.pushover.net', timeout_seconds: 10 });
  assert.deepEqual(parse('mailtos://bot%40example.com:p%40ss@smtp.example.com?to=a@example.com,b@example.com'), {
    name: 'x',
    type: 'email',
    from: 'bot@example.com',
    to: ['a@example.com', 'b@example.com'],
    smtp: { host: 'smtp.example.com', port: 465, secure: true, require_tls: false, allow_plaintext_auth: false, tls_reject_unauthorized: true, user: 'bot@example.com', password: 'p@ss', timeout_seconds: 10 },
  });
});

test('the other schemes: gotify, mmost, slack, gchat, opsgenie, twilio, json', () => {
  assert.equal((parse('gotifys://push.example.com/AppTok') as { server: string }).server, 'https://push.example.com');
  assert.equal((parse('mmost://chat.lan/abc') as { url: string }).url, 'http://chat.lan/hooks/abc');
  assert.equal((parse('slack://T1/B2/C3') as { url: string }).url, 'https://hooks.slack.com/services/T1/B2/C3');
  assert.equal((parse('gchat://SPACE/KEY/TOK') as { url: string }).url, 'https://chat.googleapis.com/v1/spaces/SPACE/messages?key=KEY&token=TOK');
  assert.equal((parse('opsgenie://gk?region=eu') as { api_url: string }).api_url, 'https://api.eu.opsgenie.com');
  const sid = `AC${'ab'.repeat(16)}`;
  assert.deepEqual((parse(`twilio://${sid}:tok@+15550001111/+15552223333`) as { to: string[] }).to, ['+15552223333']);
  assert.equal((parse('jsons://hooks.example.com/in/x') as { url: string }).url, 'https://hooks.example.com/in/x');
});

test('bad Apprise URLs are refused naming the field and the expected shape', () => {
  const r = ConfigSchema.safeParse({ channels: [{ name: 'x', apprise: 'discord://only-id' }] });
  assert.ok(!r.success);
  assert.deepEqual(r.error.issues[0]!.path, ['channels', 0, 'apprise']);
  assert.match(r.error.issues[0]!.message, /discord:\/\/<webhook_id>\/<webhook_token>/);
  const u = ConfigSchema.safeParse({ channels: [{ name: 'x', apprise: 'foo://bar' }] });
  assert.ok(!u.success);
  assert.match(u.error.issues[0]!.message, /unknown Apprise scheme "foo:\/\/".*tgram:\/\//);
  const v = ConfigSchema.safeParse({ channels: [{ name: 'x', apprise: 'pover://user@tok?priority=2' }] });
  assert.ok(!v.success, 'values are checked by the kind schema (Pushover priority ≤ 1)');
  assert.deepEqual(v.error.issues[0]!.path, ['channels', 0, 'priority']);
});

test('escalation policies may name Apprise channels', () => {
  const c = ConfigSchema.parse({ channels: [{ name: 'tg', apprise: 'tgram://1:A/2' }], escalation_policies: [{ uuid: 'ep_a', name: 'A', steps: [{ after_minutes: 0, channels: ['tg'] }] }] });
  assert.equal(c.channels[0]!.type, 'telegram');
});

test('a webhook body template must parse as Mustache', () => {
  const r = ConfigSchema.safeParse({ channels: [{ name: 'h', type: 'webhook', url: 'https://x.example', body_template: '{{#outage}}{{title}}' }] });
  assert.ok(!r.success);
  assert.deepEqual(r.error.issues[0]!.path, ['channels', 0, 'body_template']);
});

test('the homelab schemes: hassio, signal, pbul, nctalk, bark (issue 32)', () => {
  assert.deepEqual(parse('hassio://ha.lan/LLAT.tok'), { name: 'x', type: 'homeassistant', base_url: 'http://ha.lan:8123', token: 'LLAT.tok', service: 'persistent_notification', timeout_seconds: 10 });
  assert.equal((parse('hassios://ha.example.com:443/T') as { base_url: string }).base_url, 'https://ha.example.com:443');
  assert.deepEqual(parse('signal://signal.lan/15550001111/15552223333/group.abc'), {
    name: 'x', type: 'signal', base_url: 'http://signal.lan:8080', number: '+15550001111', recipients: ['+15552223333', 'group.abc'], timeout_seconds: 10,
  });
  assert.deepEqual((parse('signals://u:p%40w@signal.example.com/+15550001111') as { recipients: string[]; basic_auth: unknown }), {
    name: 'x', type: 'signal', base_url: 'https://signal.example.com', number: '+15550001111', recipients: ['+15550001111'], basic_auth: { user: 'u', password: 'p@w' }, timeout_seconds: 10,
  });
  assert.deepEqual(parse('pbul://o.TOKEN/ops@example.com'), { name: 'x', type: 'pushbullet', access_token: 'o.TOKEN', email: 'ops@example.com', api_url: 'https://api.pushbullet.com', timeout_seconds: 10 });
  assert.equal((parse('pbul://o.TOKEN/ujpah72o0') as { device_iden: string }).device_iden, 'ujpah72o0');
  assert.deepEqual(parse('nctalks://bot:app%2Fpw@cloud.example.com/a1b2c3d4'), { name: 'x', type: 'nextcloudtalk', base_url: 'https://cloud.example.com', conversation: 'a1b2c3d4', user: 'bot', password: 'app/pw', timeout_seconds: 10 });
  assert.deepEqual(parse('bark://bark.lan:8080/DEVKEY?sound=alarm&level=critical'), { name: 'x', type: 'bark', server: 'http://bark.lan:8080', device_key: 'DEVKEY', level: 'critical', group: 'Pharos', sound: 'alarm', timeout_seconds: 10 });
  assert.equal((parse('barks://api.day.app/K') as { server: string }).server, 'https://api.day.app');
  assert.throws(() => parse('nctalk://cloud.example.com/room'), /nctalk:\/\/<user>:<password>@<host>\/<conversation>/);
});
