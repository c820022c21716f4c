import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startTestPharos, tempDir, testDatabaseUrl } from '../support/pharos.ts';
import { createKumaDb, kumaBackupJson } from '../support/kuma.ts';

// `pharos import kuma` from source on Kuma databases of both schema versions (built from Kuma's
// published migrations, test/support/kuma.ts), then a real Pharos over HTTP shows what arrived.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
// This Pharos has the dns protocol and HTTP response assertions (issue 17): DNS and JSON-query monitors map.

/** config.yaml path → the test database the CLI works on when tests run on PostgreSQL (PHAROS_TEST_DRIVER). */
const databaseUrls = new Map<string, string>();
async function pharos(config: string, ...args: string[]) {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args, '--config', config], { cwd: ROOT, env: { ...process.env, PHAROS_CONFIG: '', PHAROS_DATABASE_URL: databaseUrls.get(config) ?? '' } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function setup(extraConfig = '') {
  const dir = tempDir();
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ${join(dir, 'data')}\npublic_url: https://pharos.example.com\n${extraConfig}`);
  return { dir, config, data: join(dir, 'data'), out: join(dir, 'config.kuma.yaml') };
}

const byName = <T extends { name: string }>(list: T[]) => Object.fromEntries(list.map((x) => [x.name, x]));

for (const version of ['1.23', '2.x'] as const) {
  test(`Kuma ${version} kuma.db: every mapped field, unmappable listed with reasons, a second run changes nothing`, { timeout: 120_000 }, async () => {
    // 2.x runs after config.kuma.yaml was merged: the policy exists, so monitors link to it.
    const merged = version === '2.x';
    const env = setup(
      merged
        ? `channels:\n  - {name: kuma-1-team-discord, type: webhook, url: "https://hooks.example.com/a"}\n  - {name: kuma-2-pager, type: webhook, url: "https://hooks.example.com/b"}\nescalation_policies:\n  - {uuid: ep_kuma_1_2, name: K, steps: [{after_minutes: 0, channels: [kuma-1-team-discord, kuma-2-pager]}]}\n`
        : '',
    );
    const kumaDir = join(env.dir, 'kuma');
    (await import('node:fs')).mkdirSync(kumaDir);
    createKumaDb(join(kumaDir, 'kuma.db'), version);
    const url = await testDatabaseUrl(env.data);
    if (url) databaseUrls.set(env.config, url);
    const first = await pharos(env.config, 'import', 'kuma', kumaDir, '--output', env.out);
    assert.equal(first.code, 0, first.stderr);
    const out = first.stdout;
    const expectCreated = 7; // monitors and healthchecks; plus the page and one window
    assert.match(out, new RegExp(`^Uptime Kuma ${version.replace('.', '\\.')}: ${expectCreated + 2} created, 0 unchanged \\(imported before\\), ${13 - expectCreated} not mapped$`, 'm'));
    assert.match(out, /^skipped\s+monitor 8 "Docker thing": monitor type "docker" has no Pharos protocol$/m);
    assert.match(out, /^skipped\s+monitor 9 "No errors": inverted keyword/m);
    assert.match(out, /^skipped\s+monitor 10 "Upside down": upside-down mode/m);
    assert.match(out, /^skipped\s+maintenance 2 "Weekly": strategy "recurring-weekday"/m);
    assert.match(out, /^skipped\s+maintenance 3 "Manual": strategy "manual"/m);
    assert.match(out, /^skipped\s+maintenance 4 "Old one": inactive in Kuma$/m);
    assert.match(out, /^skipped\s+notification 3 "Line": notification type "line" has no Pharos channel$/m);
    assert.match(out, /^ {4}ping URL: https:\/\/pharos\.example\.com\/ping\/tok_/m);

    const kumaYaml = readFileSync(env.out, 'utf8');
    assert.ok(!kumaYaml.includes('SECRETDISCORD') && !kumaYaml.includes('SECRETPD'), 'no secrets without --with-secrets');
    const cfg = parse(kumaYaml) as { channels: Record<string, unknown>[]; escalation_policies: { uuid: string; steps: { channels: string[] }[] }[] };
    assert.deepEqual(cfg.channels, [
      { name: 'kuma-1-team-discord', type: 'discord', url: '${KUMA_1_URL}', username: 'Kuma' },
      { name: 'kuma-2-pager', type: 'pagerduty', routing_key: '${KUMA_2_ROUTING_KEY}', api_url: 'https://events.pagerduty.com' },
    ]);
    assert.deepEqual(cfg.escalation_policies.map((p) => [p.uuid, p.steps[0]!.channels]), [
      ['ep_kuma_1_2', ['kuma-1-team-discord', 'kuma-2-pager']],
      ['ep_kuma_1', ['kuma-1-team-discord']],
      ['ep_kuma_2', ['kuma-2-pager']],
    ]);

    const second = await pharos(env.config, 'import', 'kuma', join(kumaDir, 'kuma.db'), '--output', env.out);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, new RegExp(`: 0 created, ${expectCreated + 2} unchanged \\(imported before\\), ${13 - expectCreated} not mapped$`, 'm'));

    const p = await startTestPharos({ data_dir: env.data, public_url: 'https://pharos.example.com', ...(merged ? parse(readFileSync(env.config, 'utf8')) : {}) });
    try {
      const monitors = byName((await (await p.api('/v1/monitors')).json()) as ({ name: string; uuid: string } & Record<string, unknown>)[]);
      assert.deepEqual(Object.keys(monitors).sort(), ['Blog keyword', 'DNS MX', 'Postgres port', 'Router ping', 'Shop API', 'Status JSON'].sort());
      const shop = monitors['Shop API']!;
      assert.equal(shop.protocol, 'http');
      assert.equal(shop.url, 'https://shop.example.com/health');
      assert.equal(shop.http_method, 'POST');
      assert.equal(shop.check_frequency, 60, '45 s → nearest step');
      assert.equal(shop.expected_status_code, '200-299');
      assert.equal(shop.follow_redirects, false, 'maxredirects 0');
      assert.equal(shop.request_body, '{"ping":true}');
      assert.deepEqual(shop.request_headers, [{ name: 'X-Token', value: '***' }, { name: 'Authorization', value: '***' }], 'header values are masked on reads (issue 30)');
      assert.deepEqual((await p.core.monitors.get(shop.uuid)).settings.request_headers, [{ name: 'X-Token', value: 'abc' }, { name: 'Authorization', value: `Basic ${Buffer.from('bob:pw').toString('base64')}` }]);
      assert.equal(shop.timeout, 12);
      assert.equal(shop.alerts_wait, 1, '2 retries × 30 s → 1 min');
      assert.equal(shop.paused, false);
      assert.equal((shop.escalation_policy as { uuid: string } | null)?.uuid ?? null, merged ? 'ep_kuma_1_2' : null);
      const blog = monitors['Blog keyword']!;
      assert.equal(blog.required_keyword, 'Welcome');
      assert.equal(blog.paused, true);
      assert.equal(blog.check_frequency, 300);
      assert.equal(monitors['Postgres port']!.protocol, 'port');
      assert.equal(monitors['Postgres port']!.port, 5432);
      assert.equal(monitors['Postgres port']!.url, 'db.example.com');
      assert.equal(monitors['Router ping']!.protocol, 'icmp');
      assert.equal(monitors['Router ping']!.check_frequency, 20);
      const dns = monitors['DNS MX']!;
      assert.deepEqual([dns.protocol, dns.url, dns.dns_record_type, dns.dns_resolver], ['dns', 'example.com', 'MX', '1.1.1.1']);
      const json = monitors['Status JSON']!;
      assert.equal(json.url, 'https://api.example.com/status');
      assert.deepEqual(json.assertions, [{ source: 'json', path: '$.status', op: 'equals', value: 'ok' }]);

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
        ['Infra', [monitors['Postgres port']!.uuid]],
      ]);

      const windows = (await (await p.api('/v1/maintenance-windows')).json()) as { name: string; start_date: string; end_date: string; monitors: string[]; statuspages: string[] }[] | { maintenance_windows: never[] };
      const list = Array.isArray(windows) ? windows : (Object.values(windows)[0] as { name: string; start_date: string; end_date: string; monitors: string[]; statuspages: string[] }[]);
      assert.equal(list.length, 1);
      assert.equal(list[0]!.name, 'DB upgrade');
      assert.equal(list[0]!.start_date, '2030-05-01T20:00:00.000Z', '22:00 Berlin summer time');
      assert.equal(list[0]!.end_date, '2030-05-01T23:30:00.000Z');
      assert.deepEqual(list[0]!.monitors, [monitors['Postgres port']!.uuid, shop.uuid].sort());
      assert.deepEqual(list[0]!.statuspages, [page.uuid]);
    } finally {
      await p.cleanup();
    }
  });
}

test('JSON backup with --with-secrets: channels carry the secrets, the push monitor becomes a healthcheck', { timeout: 60_000 }, async () => {
  const env = setup();
  const backup = join(env.dir, 'backup.json');
  writeFileSync(backup, kumaBackupJson());
  const r = await pharos(env.config, 'import', 'kuma', backup, '--with-secrets', '--output', env.out);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Uptime Kuma JSON backup: 2 created, 0 unchanged \(imported before\), 0 not mapped$/m);
  const cfg = parse(readFileSync(env.out, 'utf8')) as { channels: unknown[] };
  assert.deepEqual(cfg.channels, [{ name: 'kuma-4-phone', type: 'ntfy', server: 'https://ntfy.example.com', topic: 'ops', priority: 5, token: 'tk_SECRET' }]);
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
    let calls = 0;
    const real = kumaWriters(config);
    const writers = { ...real, monitor: (...a: Parameters<typeof real.monitor>) => (++calls === 3 ? (() => { throw new Error('disk on fire'); })() : real.monitor(...a)) };
    assert.throws(() => importKuma({ store, clock: systemClock, publicUrl: config.public_url, writers, statuspages: core.statuspages, escalation: core.escalation }, readKumaDb(join(dir, 'kuma.db')), { withSecrets: false }), /disk on fire/);
    assert.equal(calls, 3, 'two monitors were created before the failure');
    assert.equal(store.monitors.list().length, 0);
    assert.equal(store.healthchecks.list().length, 0);
    assert.equal((db.prepare('SELECT count(*) AS n FROM kuma_imports').get() as { n: number }).n, 0);
  } finally {
    db.close();
  }
});
