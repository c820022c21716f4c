import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapMaintenanceTimes, mapMonitor, wallTimeToEpoch, type PharosCapabilities } from '../../../src/domain/kuma/map.ts';
import { mapKumaRecurring } from '../../../src/domain/kuma/maintenance.ts';
import { kumaPolicyName, mapNotification } from '../../../src/domain/kuma/notifications.ts';
import { kumaMonitor, parseKumaBackup } from '../../../src/domain/kuma/types.ts';

// Kuma → Pharos mapping rules, including the protocols other work adds (given as capabilities).
const WITH_DNS_AND_ASSERTIONS: PharosCapabilities = { protocols: ['http', 'port', 'icmp', 'dns'], monitorFields: new Set(['name', 'url', 'dns_record_type', 'dns_resolver', 'assertions']) };
const row = (over: Record<string, unknown>) => kumaMonitor({ id: 1, name: 'm', active: 1, interval: 60, retry_interval: 60, maxretries: 0, accepted_statuscodes_json: '["200-299"]', maxredirects: 10, ...over }, []);

test('DNS monitors map to protocol dns with the agreed field names when the protocol exists', () => {
  const m = mapMonitor(row({ type: 'dns', hostname: 'example.com', dns_resolve_type: 'MX', dns_resolve_server: '9.9.9.9', port: 5353 }), WITH_DNS_AND_ASSERTIONS, null);
  assert.equal(m.kind, 'monitor');
  assert.deepEqual(m.kind === 'monitor' && { ...m.body }, { name: 'm', url: 'example.com', protocol: 'dns', check_frequency: 60, paused: false, alerts_wait: 0, dns_record_type: 'MX', dns_resolver: '9.9.9.9:5353' });
  const without = mapMonitor(row({ type: 'dns', hostname: 'example.com' }), { protocols: ['http'], monitorFields: new Set() }, null);
  assert.deepEqual(without, { kind: 'skipped', reason: 'DNS monitors need the dns protocol, which this Pharos does not have' });
});

test('JSON-query monitors become a json_query (JSONata, as Kuma 2.x evaluates it) assertion with the op of the Kuma operator when assertions exist', () => {
  const m = mapMonitor(row({ type: 'json-query', url: 'https://x.example', json_path: '$.a', expected_value: '3', json_path_operator: '>' }), WITH_DNS_AND_ASSERTIONS, 'ep_kuma_1');
  assert.equal(m.kind, 'monitor');
  const body = m.kind === 'monitor' ? (m.body as Record<string, unknown>) : {};
  assert.deepEqual(body.assertions, [{ source: 'json_query', path: '$.a', op: 'gt', value: 3 }], '> compares numbers');
  assert.equal(body.escalation_policy, 'ep_kuma_1');
  const eq = mapMonitor(row({ type: 'json-query', url: 'https://x.example', json_path: '$contains(version, "1.2")', expected_value: 'true', json_path_operator: '==' }), WITH_DNS_AND_ASSERTIONS, null);
  assert.deepEqual(eq.kind === 'monitor' && (eq.body as Record<string, unknown>).assertions, [{ source: 'json_query', path: '$contains(version, "1.2")', op: 'equals', value: 'true' }], 'a JSONata expression is kept as it is');
  const ge = mapMonitor(row({ type: 'json-query', url: 'https://x.example', json_path: '$.a', expected_value: '3', json_path_operator: '>=' }), WITH_DNS_AND_ASSERTIONS, null);
  assert.deepEqual(ge.kind === 'monitor' && (ge.body as Record<string, unknown>).assertions, [{ source: 'json_query', path: '$.a', op: 'gte', value: 3 }]);
  const nan = mapMonitor(row({ type: 'json-query', url: 'https://x.example', json_path: '$.a', expected_value: 'many', json_path_operator: '<' }), WITH_DNS_AND_ASSERTIONS, null);
  assert.equal(nan.kind, 'skipped', '< needs a number');
});

test('snmp, mongodb and gamedig monitors (Kuma 2.x rows) map to the check types of those names; what has no counterpart is skipped with the reason', () => {
  const caps: PharosCapabilities = { protocols: ['http', 'snmp', 'mongodb', 'gamedig'], monitorFields: new Set(['name', 'url', 'upside_down']) };
  const body = (over: Record<string, unknown>) => {
    const m = mapMonitor(row(over), caps, null);
    assert.equal(m.kind, 'monitor', JSON.stringify(m));
    return (m as { body: Record<string, unknown>; notes: string[] });
  };
  // Kuma keeps the community in radius_password and compares the value ($) by json_path_operator.
  const snmp = body({ type: 'snmp', hostname: 'switch.lan', port: 1161, snmp_oid: '.1.3.6.1.2.1.1.3.0', snmp_version: '2c', radius_password: 'lan-ro', json_path: '$', json_path_operator: '>', expected_value: '100' }).body;
  const keys = ['url', 'protocol', 'port', 'snmp_version', 'snmp_oid', 'snmp_condition', 'snmp_expected', 'snmp_community'];
  assert.deepEqual(Object.fromEntries(keys.map((k) => [k, snmp[k]])), { url: 'switch.lan', protocol: 'snmp', port: 1161, snmp_version: '2c', snmp_oid: '1.3.6.1.2.1.1.3.0', snmp_condition: '>', snmp_expected: '100', snmp_community: 'lan-ro' });
  const any = body({ type: 'snmp', hostname: 'switch.lan', snmp_oid: '1.3.6.1.2.1.1.1.0', snmp_version: '1', json_path: '$', json_path_operator: '==', expected_value: '' });
  assert.equal(any.body.snmp_condition, 'any');
  assert.equal(any.body.snmp_community, 'public');
  assert.equal(any.body.port, 161);
  assert.match(any.notes.join(' '), /no expected value/);
  const skipped = (over: Record<string, unknown>) => {
    const m = mapMonitor(row(over), caps, null);
    assert.equal(m.kind, 'skipped', JSON.stringify(m));
    return (m as { reason: string }).reason;
  };
  assert.match(skipped({ type: 'snmp', hostname: 'h', snmp_oid: '1.3.6', json_path: '$number($) * 2', expected_value: '4' }), /JSONata expression .* no Pharos counterpart/);
  assert.match(skipped({ type: 'snmp', hostname: 'h', snmp_oid: '1.3.6', snmp_version: '3' }), /version 3/);
  assert.match(skipped({ type: 'snmp', hostname: 'h' }), /no OID/);

  const mongo = body({ type: 'mongodb', database_connection_string: 'mongodb://db.lan:27017/app', database_query: '{"serverStatus":1}', json_path: 'version', expected_value: '7.0.2' }).body;
  assert.equal(mongo.protocol, 'mongodb');
  assert.equal(mongo.url, 'mongodb://db.lan:27017/app');
  assert.equal(mongo.mongodb_command, '{"serverStatus":1}');
  assert.equal(mongo.mongodb_json_path, '$.version');
  assert.equal(mongo.mongodb_expected, '7.0.2');
  assert.equal(body({ type: 'mongodb', database_connection_string: 'mongodb://db.lan' }).body.mongodb_command, null, 'no command: the check pings');
  assert.match(skipped({ type: 'mongodb', database_connection_string: 'mongodb://db.lan', json_path: '$count(items)' }), /JSONata expression/);

  const game = body({ type: 'gamedig', hostname: 'mc.lan', port: 25565, game: 'minecraft', gamedig_given_port_only: 0 }).body;
  assert.deepEqual([game.protocol, game.url, game.port, game.gamedig_game, game.gamedig_given_port_only], ['gamedig', 'mc.lan', 25565, 'minecraft', false]);
  assert.equal(body({ type: 'gamedig', hostname: 'mc.lan', port: 25565, game: 'minecraft' }).body.gamedig_given_port_only, true, "Kuma's default");
  assert.match(skipped({ type: 'gamedig', hostname: 'mc.lan', port: 25565 }), /no game/);
});

test('push: period = interval, grace = retries × retry interval (at least 60 s)', () => {
  const m = mapMonitor(row({ type: 'push', interval: 300, maxretries: 2, retry_interval: 120 }), WITH_DNS_AND_ASSERTIONS, null);
  assert.deepEqual(m.kind === 'healthcheck' && m.body, { name: 'm', period_value: 300, period_type: 'seconds', grace_period_value: 240, grace_period_type: 'seconds' });
});

test('intervals round to the nearest check frequency; retries become alerts_wait; timeouts clamp to 1–60 s and to the check frequency', () => {
  const m = mapMonitor(row({ type: 'http', url: 'https://x.example', interval: 25, maxretries: 5, retry_interval: 90, timeout: 70 }), WITH_DNS_AND_ASSERTIONS, null);
  assert.equal(m.kind, 'monitor');
  if (m.kind !== 'monitor') return;
  assert.equal(m.body.check_frequency, 30);
  assert.equal(m.body.alerts_wait, 10, '450 s → 8 min → the next allowed value, 10');
  assert.equal(m.body.timeout, 30);
  assert.deepEqual(m.notes, ['interval 25 s → 30 s (Pharos\'s check frequencies)', '5 retries (450 s) → alerts_wait 10 min', 'timeout 70 s → 30 s (not longer than the check frequency, 30 s)']);
});

test('fixed-time maintenance reads wall times in its zone, across DST', () => {
  assert.equal(wallTimeToEpoch('2030-01-15 12:00:00', 'Europe/Berlin'), Date.parse('2030-01-15T11:00:00Z'));
  assert.equal(wallTimeToEpoch('2030-07-15 12:00', 'Europe/Berlin'), Date.parse('2030-07-15T10:00:00Z'));
  assert.equal(wallTimeToEpoch('2030-03-31 03:30:00', 'Europe/Berlin'), Date.parse('2030-03-31T01:30:00Z'), 'just after the spring change');
  const w = { id: 1, title: 't', description: '', strategy: 'single', active: true, startDate: '2030-01-01 00:00', endDate: '2030-01-01 01:00', timezone: 'SAME_AS_SERVER', monitorIds: [], statusPageIds: [] };
  assert.deepEqual(mapMaintenanceTimes(w), { kind: 'window', startAt: Date.parse('2030-01-01T00:00:00Z'), endAt: Date.parse('2030-01-01T01:00:00Z'), notes: ["Kuma's server time zone is unknown here: times read as UTC"] });
  assert.deepEqual(mapMaintenanceTimes({ ...w, strategy: 'cron' }), { kind: 'skipped', reason: 'strategy "cron" (only windows with a fixed start and end are imported)' });
});

test('recurring maintenance (issue 33 point 6): Kuma\'s strategies become recurrences in the window\'s zone', () => {
  const w = { id: 2, title: 'w', description: '', strategy: 'recurring-weekday', active: true, startDate: null, endDate: null, timezone: 'Europe/Berlin', monitorIds: [], statusPageIds: [], startTime: '02:00:00', endTime: '03:30:00', weekdays: [7, 1] };
  assert.deepEqual(mapKumaRecurring(w), { kind: 'recurring', timezone: 'Europe/Berlin', notes: [], recurrence: { strategy: 'weekly', start_time: '02:00', duration_minutes: 90, days_of_week: [0, 1] } });
  const across = mapKumaRecurring({ ...w, startTime: '23:00', endTime: '01:00', startDate: '2030-01-01 00:00:00', endDate: '2030-12-31 00:00:00' });
  assert.deepEqual(across.kind === 'recurring' && [across.recurrence.duration_minutes, across.recurrence.valid_from, across.recurrence.valid_until], [120, '2029-12-31T23:00:00.000Z', '2030-12-30T23:00:00.000Z'], 'across midnight; the date range (Berlin wall time) bounds it');
  const monthly = mapKumaRecurring({ ...w, strategy: 'recurring-day-of-month', daysOfMonth: [1, 'lastDay1', 'lastDay2'] });
  assert.deepEqual(monthly.kind === 'recurring' && [monthly.recurrence.days_of_month, monthly.notes], [[1, 'last'], ['day "lastDay2" has no Pharos equivalent: left out']]);
  const daily = mapKumaRecurring({ ...w, strategy: 'recurring-interval', intervalDay: 1 });
  assert.deepEqual(daily.kind === 'recurring' && daily.recurrence, { strategy: 'daily', start_time: '02:00', duration_minutes: 90 });
  const every3 = mapKumaRecurring({ ...w, strategy: 'recurring-interval', intervalDay: 3 });
  assert.deepEqual(every3.kind === 'recurring' && every3.recurrence, { strategy: 'cron', cron: '0 2 */3 * *', duration_minutes: 90 });
  const cron = mapKumaRecurring({ ...w, strategy: 'cron', cron: '30 4 * * 1-5', durationSeconds: 5400, timezone: 'SAME_AS_SERVER' });
  assert.deepEqual(cron, { kind: 'recurring', timezone: 'UTC', notes: ["Kuma's server time zone is unknown here: times read as UTC"], recurrence: { strategy: 'cron', cron: '30 4 * * 1-5', duration_minutes: 90 } });
  assert.deepEqual(mapKumaRecurring({ ...w, startTime: null }), { kind: 'skipped', reason: 'no start and end time' });
  assert.deepEqual(mapKumaRecurring({ ...w, weekdays: [] }), { kind: 'skipped', reason: 'no weekday' });
  assert.deepEqual(mapKumaRecurring({ ...w, active: false }), { kind: 'skipped', reason: 'inactive in Kuma' });
  assert.deepEqual(mapKumaRecurring({ ...w, strategy: 'cron', cron: '0 3 * * *', durationSeconds: null }), { kind: 'skipped', reason: 'no duration' });
});

test('notifications: every supported provider maps to a valid integration with plaintext settings (sealed by the importer)', () => {
  const n = (type: string, config: Record<string, unknown>) => ({ id: 7, name: 'Ops Team!', active: true, isDefault: false, config: { type, ...config } });
  const cases: [string, Record<string, unknown>, string][] = [
    ['telegram', { telegramBotToken: '1:A', telegramChatID: '-100', telegramMessageThreadID: '3' }, 'telegram'],
    ['gotify', { gotifyserverurl: 'https://g.example', gotifyapplicationToken: 'A', gotifyPriority: 5 }, 'gotify'],
    ['pushover', { pushoveruserkey: 'u', pushoverapptoken: 'a', pushoverpriority: '2' }, 'pushover'],
    ['matrix', { homeserverUrl: 'https://m.example', internalRoomId: '!r:m.example', accessToken: 't' }, 'matrix'],
    ['mattermost', { mattermostWebhookUrl: 'https://mm.example/hooks/x' }, 'mattermost'],
    ['GoogleChat', { googleChatWebhookURL: 'https://chat.googleapis.com/v1/spaces/x/messages?key=k' }, 'googlechat'],
    ['Opsgenie', { opsgenieApiKey: 'k', opsgenieRegion: 'eu' }, 'opsgenie'],
    ['twilio', { twilioAccountSID: `AC${'a'.repeat(32)}`, twilioAuthToken: 't', twilioFromNumber: '+15550001111', twilioToNumber: '+15550002222' }, 'twilio'],
    ['slack', { slackwebhookURL: 'https://hooks.slack.com/services/a' }, 'slack'],
    ['teams', { webhookUrl: 'https://x.webhook.office.com/a' }, 'teams'],
    ['webhook', { webhookURL: 'https://h.example/in', webhookContentType: 'json' }, 'webhook'],
    ['smtp', { smtpHost: 'smtp.example', smtpPort: 465, smtpSecure: 'secure', smtpUsername: 'u', smtpPassword: 'p', smtpFrom: 'a@example.com', smtpTo: 'b@example.com, c@example.com' }, 'email'],
    ['apprise', { appriseURL: 'tgram://1:A/2' }, 'telegram'],
    ['apprise', { appriseURL: 'mqtt://broker.lan/alerts' }, 'apprise'],
    ['HomeAssistant', { homeAssistantUrl: 'http://ha.lan:8123/', longLivedAccessToken: 'LLT', notificationService: 'mobile_app_pixel' }, 'homeassistant'],
    ['signal', { signalURL: 'http://signal.lan:8080/v2/send', signalNumber: '+15550001111', signalRecipients: '+15550002222, +15550003333' }, 'signal'],
    ['pushbullet', { pushbulletAccessToken: 'o.PB' }, 'pushbullet'],
    ['rocket.chat', { rocketwebhookURL: 'https://chat.example/hooks/a/b', rocketchannel: '#ops', rocketusername: 'Kuma', rocketiconemo: ':bell:' }, 'rocketchat'],
    ['Bark', { barkEndpoint: 'https://api.day.app/DEVKEY/', barkGroup: 'Home', barkSound: 'alarm' }, 'bark'],
  ];
  for (const [type, config, expected] of cases) {
    const m = mapNotification(n(type, config));
    assert.equal(m.kind, 'integration', `${type}: ${m.kind === 'skipped' ? m.reason : ''}`);
    if (m.kind === 'integration') assert.equal(m.integration.kind, expected, type);
  }
  const settingsOf = (type: string, config: Record<string, unknown>) => {
    const m = mapNotification(n(type, config));
    assert.equal(m.kind, 'integration', m.kind === 'skipped' ? m.reason : '');
    return m.kind === 'integration' ? m.integration.settings : {};
  };
  assert.equal((settingsOf('smtp', cases[11]![1]).smtp as { password: string }).password, 'p', 'plaintext: the importer seals it');
  assert.equal(settingsOf('pushover', { pushoveruserkey: 'u', pushoverapptoken: 'a', pushoverpriority: '2' }).priority, 1, 'emergency priority 2 → 1');
  assert.deepEqual(settingsOf('HomeAssistant', cases[14]![1]), { base_url: 'http://ha.lan:8123', token: 'LLT', service: 'mobile_app_pixel', timeout_seconds: 10 });
  assert.equal(settingsOf('HomeAssistant', { homeAssistantUrl: 'http://ha.lan:8123', longLivedAccessToken: 'LLT' }).service, 'notify', "Kuma's default service");
  assert.deepEqual(settingsOf('signal', cases[15]![1]), { base_url: 'http://signal.lan:8080', number: '+15550001111', recipients: ['+15550002222', '+15550003333'], timeout_seconds: 10 });
  assert.deepEqual(settingsOf('pushbullet', cases[16]![1]), { access_token: 'o.PB', api_url: 'https://api.pushbullet.com', timeout_seconds: 10 });
  assert.deepEqual(settingsOf('rocket.chat', cases[17]![1]), { url: 'https://chat.example/hooks/a/b', channel: '#ops', alias: 'Kuma', emoji: ':bell:', timeout_seconds: 10 });
  assert.deepEqual(settingsOf('Bark', cases[18]![1]), { server: 'https://api.day.app', device_key: 'DEVKEY', group: 'Home', sound: 'alarm', level: 'timeSensitive', timeout_seconds: 10 });
  assert.deepEqual(settingsOf('apprise', cases[13]![1]).urls, ['mqtt://broker.lan/alerts']);
  const hook = mapNotification(n('webhook', { webhookURL: 'https://h.example/in', webhookContentType: 'custom', webhookCustomBody: '{"x":1}', httpMethod: 'get', webhookAdditionalHeaders: '{"Authorization":"Bearer T","X-Env":"prod","X-N":3}' }));
  assert.equal(hook.kind, 'integration');
  if (hook.kind === 'integration') {
    assert.deepEqual(hook.integration.settings.headers, { Authorization: 'Bearer T', 'X-Env': 'prod', 'X-N': '3' }, "Kuma's additional headers come over");
    assert.deepEqual(hook.notes, [
      "not carried: Kuma's custom body template (Pharos templates are Mustache: set body_template by hand)",
      'not carried: method GET (Pharos webhooks POST)',
    ]);
  }
  const badHeaders = mapNotification(n('webhook', { webhookURL: 'https://h.example/in', webhookAdditionalHeaders: '{nope' }));
  assert.deepEqual(badHeaders.kind === 'integration' && badHeaders.notes, ['not carried: additional headers (not valid JSON in Kuma)']);
  assert.deepEqual(mapNotification(n('nextcloudtalk', { host: 'https://cloud.example', conversationToken: 'abcd1234', botSecret: 's' })), {
    kind: 'skipped',
    reason: "Kuma's Nextcloud Talk posts as a bot (bot secret); Pharos's nextcloudtalk integration posts as a user with an app password: add it by hand",
  });
  assert.deepEqual(mapNotification(n('line', {})), { kind: 'skipped', reason: 'notification type "line" has no Pharos integration kind' });
  assert.deepEqual(mapNotification(n('twilio', { twilioAccountSID: 'bad', twilioAuthToken: 't', twilioFromNumber: '+15550001111', twilioToNumber: '+15550002222' })), { kind: 'skipped', reason: 'account_sid: must be an account SID (AC + 32 hex digits)' });
  const off = mapNotification({ ...n('pushbullet', { pushbulletAccessToken: 'x' }), active: false });
  assert.equal(off.kind === 'integration' && off.integration.enabled, false, 'disabled in Kuma → disabled integration');
});

test('policy names: "Kuma: A + B" from the notification names, within 100 characters', () => {
  assert.equal(kumaPolicyName(['Slack', 'Email']), 'Kuma: Slack + Email');
  assert.ok(kumaPolicyName(Array.from({ length: 30 }, (_, i) => `Notification ${i}`)).length <= 100);
});

test('a JSON backup that is not one is refused with the reason', () => {
  assert.throws(() => parseKumaBackup('{"hello":1}'), /not a Kuma JSON backup: no monitorList array/);
  assert.throws(() => parseKumaBackup('nope'), /not a Kuma JSON backup/);
});
