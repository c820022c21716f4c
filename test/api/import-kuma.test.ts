import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startTestPharos, tempDir, testDatabaseUrl, type TestPharos } from '../support/pharos.ts';
import { createKumaDb, kumaBackupJson } from '../support/kuma.ts';
import { httpReceiver } from '../support/receivers.ts';
import { loadSecretKey, secretBox } from '../../src/lib/secret-box.ts';
import { openSettings } from '../../src/domain/integration.ts';

// `pharos import kuma` from source on Kuma databases of both schema versions (built from Kuma's
// published migrations, test/support/kuma.ts), then a real Pharos over HTTP (and its store) shows
// what arrived: monitors, pages, windows, and the notifications as integrations (secrets sealed)
// with one escalation policy per set of notifications, linked to the monitors (issue 32 point 6).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** config.yaml path → the test database the CLI works on when tests run on PostgreSQL (PHAROS_TEST_DRIVER). */
const databaseUrls = new Map<string, string>();
async function pharos(config: string, ...args: string[]) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--config', config], { cwd: ROOT, env: { ...process.env, PHAROS_CONFIG: '', PHAROS_SECRET_KEY: '', PHAROS_DATABASE_URL: databaseUrls.get(config) ?? '' } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

async function setup() {
  const dir = tempDir();
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ${join(dir, 'data')}\npublic_url: https://pharos.example.com\n`);
  const url = await testDatabaseUrl(join(dir, 'data'));
  if (url) databaseUrls.set(config, url);
  return { dir, config, data: join(dir, 'data') };
}

/** Pharos on the imported data dir, with the key the CLI used: `<data_dir>/secret.key` (no `secret_key` set). */
const serve = (dataDir: string) => startTestPharos({ data_dir: dataDir, public_url: 'https://pharos.example.com', secret_key: undefined });

/** By name, in code point order (SQLite and PostgreSQL collate names differently). */
const byName = <T extends { name: string }>(list: T[]) => Object.fromEntries([...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((x) => [x.name, x]));
const IMPORT_ACTOR = { type: 'system', id: 'kuma-import', name: 'pharos import kuma' };

/** What the store holds of integrations, policies, links and the import's audit entries (for "nothing changed"). */
async function snapshot(p: TestPharos) {
  const integrations = await p.store.async.integrations.list();
  const policies = await p.store.async.escalationPolicies.list();
  const monitors = await p.store.async.monitors.list();
  const healthchecks = await p.store.async.healthchecks.list();
  const audit = await p.store.async.auditLog.page({ actorType: 'system', actorId: 'kuma-import' }, 500, null);
  return {
    integrations: integrations.map((i) => [i.uuid, i.name, i.kind, i.enabled, i.updatedAt]),
    policies: policies.map((x) => [x.uuid, x.name, JSON.stringify(x.steps), x.updatedAt]),
    links: [...monitors, ...healthchecks].map((m) => [m.name, m.escalationPolicyUuid]).sort(),
    audit: audit.entries.length,
  };
}

/** The plaintext settings of the stored integration `name`, opened with the data dir's key (as `pharos serve` does). */
async function plaintextOf(p: TestPharos, name: string) {
  const box = secretBox(loadSecretKey({ dataDir: p.dataDir, keyText: undefined }).key);
  const i = (await p.store.async.integrations.getByName(name))!;
  assert.ok(i, `integration ${name}`);
  return openSettings(i.settings, (await p.store.async.integrations.sealedSecrets(i.uuid))!, (s) => box.open(s));
}

/** Everything stored of the integrations (masked settings and sealed secrets: the rows' columns). */
async function storedText(p: TestPharos) {
  const all = await p.store.async.integrations.list();
  const sealed = await Promise.all(all.map((i) => p.store.async.integrations.sealedSecrets(i.uuid)));
  return JSON.stringify(all) + JSON.stringify(sealed);
}

for (const version of ['1.23', '2.x'] as const) {
  test(`Kuma ${version} kuma.db: monitors, integrations and policies linked in one command; skipped items reported with reasons; a second run changes nothing`, { timeout: 120_000 }, async () => {
    const env = await setup();
    const kumaDir = join(env.dir, 'kuma');
    mkdirSync(kumaDir);
    createKumaDb(join(kumaDir, 'kuma.db'), version);
    const first = await pharos(env.config, 'import', 'kuma', kumaDir);
    assert.equal(first.code, 0, first.stderr);
    const out = first.stdout;
    // 8 monitors + 1 healthcheck + 3 integrations + 4 policies + 1 page + 1 window
    assert.match(out, new RegExp(`^Uptime Kuma ${version.replace('.', '\\.')}: 18 created, 0 unchanged, 0 linked to a policy, 5 not imported: 1 monitor, 1 notification, 3 maintenance windows \\(reasons above\\)$`, 'm'));
    assert.match(out, /^skipped\s+monitor 8 "Docker thing": no Docker host \(Kuma's docker_host/m);
    assert.match(out, /^created\s+monitor 9 "No errors" → mon_\w+$/m, 'inverted keyword → keyword_absent (issue 36)');
    assert.match(out, /^created\s+monitor 10 "Upside down" → mon_\w+$/m, 'upside-down → upside_down (issue 36)');
    assert.match(out, /^skipped\s+maintenance 2 "Weekly": no start and end time/m);
    assert.match(out, /^skipped\s+maintenance 3 "Manual": strategy "manual"/m);
    assert.match(out, /^skipped\s+maintenance 4 "Old one": inactive in Kuma$/m);
    assert.match(out, /^skipped\s+notification 3 "Line": notification type "line" has no Pharos integration kind$/m);
    assert.match(out, /^created\s+notification 1 "Team Discord" → int_\w+$/m);
    assert.match(out, /^created\s+notification 4 "Ops hook" → int_\w+$/m);
    assert.match(out, /^created\s+policy "Kuma: Team Discord \+ Pager" → ep_\w+$/m);
    assert.match(out, /^created\s+monitor 1 "Shop API" → mon_\w+\n(?: {4}.*\n)* {4}escalation policy "Kuma: Team Discord \+ Pager"$/m);
    assert.match(out, /^created\s+monitor 3 "Status JSON" → mon_\w+\n(?: {4}.*\n)* {4}not alerted: notification 3 "Line" was not imported$/m);
    assert.match(out, /^ {4}ping URL: https:\/\/pharos\.example\.com\/ping\/tok_/m);
    assert.ok(!/SECRET/.test(out), 'no secret in the output');
    assert.ok(!existsSync(join(ROOT, 'config.kuma.yaml')) && !existsSync(join(env.dir, 'config.kuma.yaml')), 'no config.kuma.yaml any more');

    let p = await serve(env.data);
    let before: Awaited<ReturnType<typeof snapshot>>;
    try {
      const integrations = byName(await p.store.async.integrations.list());
      assert.deepEqual(Object.keys(integrations).sort(), ['Ops hook', 'Pager', 'Team Discord']);
      assert.deepEqual(
        Object.values(integrations).map((i) => [i.name, i.kind, i.enabled, i.provisioned, i.settings]),
        [
          ['Ops hook', 'webhook', true, false, { url: '***', headers: { Authorization: '***', 'X-Env': '***' }, timeout_seconds: 10 }],
          ['Pager', 'pagerduty', true, false, { routing_key: '***', api_url: 'https://events.pagerduty.com', timeout_seconds: 10 }],
          ['Team Discord', 'discord', true, false, { url: '***', username: 'Kuma', timeout_seconds: 10 }],
        ],
      );
      const stored = await storedText(p);
      for (const secret of ['SECRETDISCORD', 'SECRETPD', 'SECRETHOOK', 'SECRETHEADER']) assert.ok(!stored.includes(secret), `${secret} is sealed`);
      assert.deepEqual(await plaintextOf(p, 'Ops hook'), { url: 'https://hooks.example.com/SECRETHOOK', headers: { Authorization: 'Bearer SECRETHEADER', 'X-Env': 'prod' }, timeout_seconds: 10 }, "Kuma's webhook headers came over");
      assert.equal((await plaintextOf(p, 'Team Discord')).url, 'https://discord.com/api/webhooks/1/SECRETDISCORD');

      const policies = byName(await p.store.async.escalationPolicies.list());
      const target = (...names: string[]) => [{ delayMinutes: 0, targets: names.map((n) => ({ type: 'integration', uuid: integrations[n]!.uuid })) }];
      assert.deepEqual(
        Object.values(policies).map((x) => [x.name, x.steps, x.repeatCount, x.provisioned]),
        [
          ['Kuma: Ops hook', target('Ops hook'), 0, false],
          ['Kuma: Pager', target('Pager'), 0, false],
          ['Kuma: Team Discord', target('Team Discord'), 0, false],
          ['Kuma: Team Discord + Pager', target('Team Discord', 'Pager'), 0, false],
        ],
      );
      const monitors = byName(await p.store.async.monitors.list());
      const policyOf = (m: { escalationPolicyUuid: string | null } | undefined) => (m?.escalationPolicyUuid ? (Object.values(policies).find((x) => x.uuid === m.escalationPolicyUuid)?.name ?? m.escalationPolicyUuid) : null);
      assert.deepEqual(
        Object.values(monitors).map((m) => [m.name, policyOf(m)]).sort(),
        [
          ['Blog keyword', null],
          ['DNS MX', null],
          ['No errors', null],
          ['Postgres port', 'Kuma: Team Discord'],
          ['Router ping', 'Kuma: Ops hook'],
          ['Shop API', 'Kuma: Team Discord + Pager'],
          ['Status JSON', null],
          ['Upside down', null],
        ],
      );
      const hc = (await p.store.async.healthchecks.list())[0]!;
      assert.equal(policyOf(hc), 'Kuma: Pager');

      const audit = (await p.store.async.auditLog.page({ actorType: 'system', actorId: 'kuma-import' }, 500, null)).entries;
      assert.ok(audit.every((e) => JSON.stringify(e.actor) === JSON.stringify(IMPORT_ACTOR)));
      const created = (type: string) => audit.filter((e) => e.resourceType === type && e.action === 'create').map((e) => e.resourceName).sort();
      assert.deepEqual(created('integration'), ['Ops hook', 'Pager', 'Team Discord']);
      assert.deepEqual(created('escalation_policy'), ['Kuma: Ops hook', 'Kuma: Pager', 'Kuma: Team Discord', 'Kuma: Team Discord + Pager']);
      const hookEntry = audit.find((e) => e.resourceName === 'Ops hook')!;
      assert.deepEqual(hookEntry.diff['settings.headers.Authorization'], { after: '***' }, 'secrets masked in the audit log');
      assert.ok(!JSON.stringify(audit).includes('SECRET'), 'no secret in the audit log');

      // Monitors as the API shows them (unchanged by the new import).
      const api = byName((await (await p.api('/v1/monitors')).json()) as ({ name: string; uuid: string } & Record<string, unknown>)[]);
      const shop = api['Shop API']!;
      assert.equal(shop.protocol, 'http');
      assert.equal(shop.url, 'https://shop.example.com/health');
      assert.equal(shop.http_method, 'POST');
      assert.equal(shop.check_frequency, 60, '45 s → nearest step');
      assert.equal(shop.expected_status_code, '200-299,301', 'every accepted code (issue 36)');
      assert.equal(shop.follow_redirects, false, 'maxredirects 0');
      assert.equal(shop.request_body, '{"ping":true}');
      assert.deepEqual(shop.request_headers, [{ name: 'X-Token', value: '***' }], 'header values are masked on reads (issue 30)');
      assert.deepEqual((await p.core.monitors.get(shop.uuid)).settings.request_headers, [{ name: 'X-Token', value: 'abc' }]);
      assert.deepEqual([shop.auth_method, shop.auth_username], ['basic', 'bob'], 'basic auth → the http auth option (issue 36)');
      assert.equal(shop.timeout, 12);
      assert.equal(shop.alerts_wait, 1, '2 retries × 30 s → 1 min');
      assert.equal(shop.paused, false);
      const blog = api['Blog keyword']!;
      assert.equal(blog.required_keyword, 'Welcome');
      assert.equal(blog.paused, true);
      assert.equal(blog.check_frequency, 300);
      assert.equal(api['Postgres port']!.protocol, 'port');
      assert.equal(api['Postgres port']!.port, 5432);
      assert.equal(api['Postgres port']!.url, 'db.example.com');
      assert.equal(api['Router ping']!.protocol, 'icmp');
      assert.equal(api['Router ping']!.check_frequency, 20);
      const dns = api['DNS MX']!;
      assert.deepEqual([dns.protocol, dns.url, dns.dns_record_type, dns.dns_resolver], ['dns', 'example.com', 'MX', '1.1.1.1']);
      const json = api['Status JSON']!;
      assert.equal(json.url, 'https://api.example.com/status');
      assert.deepEqual(json.assertions, [{ source: 'json_query', path: '$.status', op: 'equals', value: 'ok' }], "Kuma's JSONata, evaluated as Kuma does (issue 36)");

      const hcs = (await (await p.api('/v1/healthchecks')).json()) as { uuid: string; name: string; period: number; gracePeriod: number }[];
      assert.equal(hcs.length, 1);
      assert.equal(hcs[0]!.name, 'Nightly backup');
      assert.equal(hcs[0]!.period, 86400);
      assert.equal(hcs[0]!.gracePeriod, 1800, '3 retries × 600 s');

      const pages = (await (await p.api('/v2/statuspages')).json()).statuspages as { uuid: string; name: string; subdomain: string; description: string; sections: { name: { en: string }; services: { monitor_uuid: string }[] }[] }[];
      assert.equal(pages.length, 1);
      const page = pages[0]!;
      assert.equal(page.name, 'Example status');
      assert.equal(page.subdomain, 'public-status');
      assert.deepEqual((page as unknown as { settings: { description: unknown } }).settings.description, { en: 'All our services' }, 'a localized map in the page language (docs/api.md "Clients")');
      assert.deepEqual(page.sections.map((s) => [s.name.en, s.services.map((x) => x.monitor_uuid)]), [
        ['Web', [shop.uuid, blog.uuid, hcs[0]!.uuid]],
        ['Infra', [api['Postgres port']!.uuid]],
      ]);

      const windows = (await (await p.api('/v1/maintenance-windows')).json()) as { name: string; start_date: string; end_date: string; monitors: string[]; statuspages: string[] }[] | { maintenance_windows: never[] };
      const list = Array.isArray(windows) ? windows : (Object.values(windows)[0] as { name: string; start_date: string; end_date: string; monitors: string[]; statuspages: string[] }[]);
      assert.equal(list.length, 1);
      assert.equal(list[0]!.name, 'DB upgrade');
      assert.equal(list[0]!.start_date, '2030-05-01T20:00:00.000Z', '22:00 Berlin summer time');
      assert.equal(list[0]!.end_date, '2030-05-01T23:30:00.000Z');
      assert.deepEqual(list[0]!.monitors, [api['Postgres port']!.uuid, shop.uuid].sort());
      assert.deepEqual(list[0]!.statuspages, [page.uuid]);
      before = await snapshot(p);
    } finally {
      await p.cleanup();
    }

    const second = await pharos(env.config, 'import', 'kuma', join(kumaDir, 'kuma.db'));
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /: 0 created, 18 unchanged, 0 linked to a policy, 5 not imported: 1 monitor, 1 notification, 3 maintenance windows \(reasons above\)$/m);
    assert.match(second.stdout, /^unchanged\s+notification 1 "Team Discord" → int_\w+$/m);
    assert.match(second.stdout, /^unchanged\s+policy "Kuma: Team Discord \+ Pager" → ep_\w+$/m);
    p = await serve(env.data);
    try {
      assert.deepEqual(await snapshot(p), before, 'the second run created, changed and linked nothing');
    } finally {
      await p.cleanup();
    }
  });
}

test('monitors imported earlier without a policy get theirs on the next run; a link is made once (a person removing it, or new notifications in Kuma, change nothing)', { timeout: 120_000 }, async () => {
  const env = await setup();
  const full = join(env.dir, 'kuma.db');
  createKumaDb(full, '2.x');
  // What an earlier import left (the version that wrote config.kuma.yaml): monitors, no policies.
  const bare = join(env.dir, 'bare.db');
  createKumaDb(bare, '2.x');
  const db = new Database(bare);
  db.exec('DELETE FROM monitor_notification; DELETE FROM notification;');
  db.close();
  const first = await pharos(env.config, 'import', 'kuma', bare);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /: 11 created, 0 unchanged, 0 linked to a policy, 4 not imported: 1 monitor, 3 maintenance windows \(reasons above\)$/m);

  const second = await pharos(env.config, 'import', 'kuma', full);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /: 7 created, 7 unchanged, 4 linked to a policy, 5 not imported: 1 monitor, 1 notification, 3 maintenance windows \(reasons above\)$/m);
  assert.match(second.stdout, /^linked\s+monitor 1 "Shop API" → mon_\w+\n {4}escalation policy "Kuma: Team Discord \+ Pager"$/m);
  assert.match(second.stdout, /^linked\s+healthcheck 7 "Nightly backup" → tok_\w+\n {4}escalation policy "Kuma: Pager"$/m);

  let p = await serve(env.data);
  let postgresPort: { uuid: string };
  try {
    const policies = new Map((await p.store.async.escalationPolicies.list()).map((x) => [x.uuid, x.name]));
    const monitors = byName(await p.store.async.monitors.list());
    assert.equal(policies.get(monitors['Shop API']!.escalationPolicyUuid!), 'Kuma: Team Discord + Pager');
    assert.equal(policies.get(monitors['Postgres port']!.escalationPolicyUuid!), 'Kuma: Team Discord');
    assert.equal(policies.get((await p.store.async.healthchecks.list())[0]!.escalationPolicyUuid!), 'Kuma: Pager');
    const audit = (await p.store.async.auditLog.page({ actorType: 'system', actorId: 'kuma-import', resourceType: 'monitor' }, 500, null)).entries;
    const linkOfShop = audit.find((e) => e.resourceName === 'Shop API' && e.action === 'update')!;
    assert.deepEqual(linkOfShop.diff, { escalation_policy: { before: null, after: monitors['Shop API']!.escalationPolicyUuid } }, 'the link is audited');
    postgresPort = monitors['Postgres port']!;
    // A person takes the imported policy off one monitor.
    const r = await p.api(`/v1/monitors/${postgresPort.uuid}`, { method: 'PUT', json: { escalation_policy: 'none' } });
    assert.equal(r.status, 200, await r.text());
  } finally {
    await p.cleanup();
  }

  // Meanwhile in Kuma, Shop API also sends to the webhook: its link stays (made once), no new policy.
  const kuma = new Database(full);
  kuma.exec('INSERT INTO monitor_notification(monitor_id, notification_id) VALUES (1, 4)');
  kuma.close();
  const third = await pharos(env.config, 'import', 'kuma', full);
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stdout, /: 0 created, 18 unchanged, 0 linked to a policy, 5 not imported/m);
  p = await serve(env.data);
  try {
    assert.equal((await p.store.async.monitors.get(postgresPort.uuid))!.escalationPolicyUuid, null, 'linked once: not linked again');
    assert.equal((await p.store.async.escalationPolicies.list()).length, 4, 'no policy for the new set of notifications');
  } finally {
    await p.cleanup();
  }
});

test('JSON backup: the new kinds (Home Assistant, Signal, Pushbullet, Rocket.Chat, Bark, Apprise) and webhook headers come over, sealed; what cannot is reported', { timeout: 60_000 }, async () => {
  const env = await setup();
  const receiver = await httpReceiver();
  const backup = join(env.dir, 'backup.json');
  writeFileSync(backup, kumaBackupJson(`${receiver.url}/in/SECRETHOOK`));
  const r = await pharos(env.config, 'import', 'kuma', backup);
  assert.equal(r.code, 0, r.stderr);
  // 2 monitors + 9 integrations + 1 policy
  assert.match(r.stdout, /^Uptime Kuma JSON backup: 12 created, 0 unchanged, 0 linked to a policy, 1 not imported: 1 notification \(reasons above\)$/m);
  assert.match(r.stdout, /^skipped\s+notification 10 "Talk": Kuma's Nextcloud Talk posts as a bot \(bot secret\); Pharos's nextcloudtalk integration posts as a user with an app password: add it by hand$/m);
  assert.match(r.stdout, /^created\s+notification 5 "Hook" → int_\w+\n {4}not carried: Kuma's custom body template/m);
  assert.match(r.stdout, /^created\s+notification 8 "PB" → int_\w+\n {4}disabled in Kuma: the integration is disabled$/m);
  assert.match(r.stdout, /^created\s+policy "Kuma: Phone \+ Hook" → ep_\w+$/m);
  assert.ok(!/SECRET/.test(r.stdout), 'no secret in the output');

  const p = await serve(env.data);
  try {
    const integrations = byName(await p.store.async.integrations.list());
    assert.deepEqual(
      Object.values(integrations).map((i) => [i.name, i.kind, i.enabled]),
      [
        ['Apprise MQTT', 'apprise', true],
        ['Apprise TG', 'telegram', true],
        ['Home', 'homeassistant', true],
        ['Hook', 'webhook', true],
        ['PB', 'pushbullet', false],
        ['Phone', 'ntfy', true],
        ['Rocket', 'rocketchat', true],
        ['Signal', 'signal', true],
        ['iPhone', 'bark', true],
      ],
    );
    const stored = await storedText(p);
    for (const s of ['SECRETHOOK', 'SECRETHEADER', 'SECRETHA', 'SECRETPB', 'SECRETRC', 'SECRETBARK', 'SECRETTG', 'SECRETMQ', 'tk_SECRET']) assert.ok(!stored.includes(s), `${s} is sealed`);
    assert.deepEqual(await plaintextOf(p, 'Hook'), { url: `${receiver.url}/in/SECRETHOOK`, headers: { Authorization: 'Bearer SECRETHEADER', 'X-Env': 'prod' }, timeout_seconds: 10 });
    // An alert through the imported webhook carries Kuma's headers (the integration's test alert).
    const sent = await p.api(`/v1/integrations/${integrations.Hook!.uuid}/test`, { method: 'POST' });
    assert.equal(sent.status, 200, await sent.clone().text());
    const got = receiver.received.find((x) => x.path === '/in/SECRETHOOK')!;
    assert.ok(got, 'the webhook was called');
    assert.equal(got.headers.authorization, 'Bearer SECRETHEADER');
    assert.equal(got.headers['x-env'], 'prod');
    assert.deepEqual(await plaintextOf(p, 'Home'), { base_url: 'http://ha.lan:8123', token: 'SECRETHA', service: 'mobile_app_pixel', timeout_seconds: 10 });
    assert.deepEqual(await plaintextOf(p, 'Signal'), { base_url: 'http://signal.lan:8080', number: '+15550001111', recipients: ['+15550002222', '+15550003333'], timeout_seconds: 10 });
    assert.deepEqual(await plaintextOf(p, 'PB'), { access_token: 'o.SECRETPB', api_url: 'https://api.pushbullet.com', timeout_seconds: 10 });
    assert.deepEqual(await plaintextOf(p, 'Rocket'), { url: 'https://chat.example.com/hooks/a/SECRETRC', channel: '#ops', alias: 'Kuma', emoji: ':bell:', timeout_seconds: 10 });
    assert.deepEqual(await plaintextOf(p, 'iPhone'), { server: 'https://api.day.app', device_key: 'SECRETBARK', group: 'Home', sound: 'alarm', level: 'timeSensitive', timeout_seconds: 10 });
    assert.equal((await plaintextOf(p, 'Apprise TG')).bot_token, '1:SECRETTG');
    assert.deepEqual((await plaintextOf(p, 'Apprise MQTT')).urls, ['mqtt://user:SECRETMQ@broker.lan/alerts']);
    assert.equal((await plaintextOf(p, 'Phone')).token, 'tk_SECRET');
    const site = (await p.store.async.monitors.list()).find((m) => m.name === 'Backup site')!;
    assert.equal((await p.store.async.escalationPolicies.get(site.escalationPolicyUuid!))?.name, 'Kuma: Phone + Hook');
  } finally {
    await p.cleanup();
    await receiver.close();
  }

  const old = await pharos(env.config, 'import', 'kuma', backup, '--output', join(env.dir, 'x.yaml'));
  assert.equal(old.code, 1);
  assert.match(old.stderr, /--output and --with-secrets are gone: the import creates integrations and escalation policies in the database/);
  const bad = await pharos(env.config, 'import', 'kuma', join(env.dir, 'nope'));
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /import kuma: .*nope does not exist/);
});

test('one transaction: an unexpected failure half-way leaves nothing imported', async () => {
  const { openDb } = await import('../../src/store/db.ts');
  const { createStore } = await import('../../src/store/index.ts');
  const { createCore } = await import('../../src/core/index.ts');
  const { importKuma, kumaWriters } = await import('../../src/core/import-kuma.ts');
  const { readKumaDb } = await import('../../src/store/kuma.ts');
  const { parseConfig } = await import('../../src/config/load.ts');
  const { silentLogger } = await import('../../src/lib/logger.ts');
  const { systemClock } = await import('../../src/lib/clock.ts');
  const dir = tempDir();
  createKumaDb(join(dir, 'kuma.db'), '2.x');
  const config = parseConfig({ data_dir: join(dir, 'data') });
  const db = openDb(config.data_dir);
  try {
    const store = createStore(db);
    const core = createCore({ store, clock: systemClock, logger: silentLogger, config });
    const box = secretBox(loadSecretKey({ dataDir: config.data_dir, keyText: undefined }).key);
    let calls = 0;
    const real = kumaWriters(config);
    const writers = { ...real, monitor: (...a: Parameters<typeof real.monitor>) => (++calls === 3 ? (() => { throw new Error('disk on fire'); })() : real.monitor(...a)) };
    assert.throws(() => importKuma({ store, clock: systemClock, publicUrl: config.public_url, writers, statuspages: core.statuspages, seal: (t) => box.seal(t) }, readKumaDb(join(dir, 'kuma.db'))), /disk on fire/);
    assert.equal(calls, 3, 'two monitors were created before the failure');
    assert.equal(store.monitors.list().length, 0);
    assert.equal(store.healthchecks.list().length, 0);
    assert.equal(store.integrations.list().length, 0);
    assert.equal(store.escalationPolicies.list().length, 0);
    assert.equal(store.auditLog.page({}, 10, null).entries.length, 0);
    assert.equal((db.prepare('SELECT count(*) AS n FROM kuma_imports').get() as { n: number }).n, 0);
  } finally {
    db.close();
  }
});
