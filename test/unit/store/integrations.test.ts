import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { rawDb, type Store } from '../../../src/store/index.ts';
import { openStore, type StorageTarget } from '../../../src/store/open.ts';
import { openSecretBox } from '../../../src/store/secret-check.ts';
import { secretBox } from '../../../src/lib/secret-box.ts';
import { AppError } from '../../../src/lib/errors.ts';
import { keepMaskedSecrets, MASK, openSettings, sealSettings, type IntegrationWrite } from '../../../src/domain/integration.ts';
import { auditDiff, integrationSecretTest, type NewAuditEntry } from '../../../src/domain/audit.ts';
import type { EscalationPolicyWrite } from '../../../src/domain/escalation-policy.ts';
import { sharedPostgres, tempDir } from '../../support/pharos.ts';

// Issue 32 foundation: integrations, escalation policies, the audit log and the secret key check in
// the store, on both drivers, through `store.x` and `store.async.x` (PostgreSQL: the store host
// thread, so every value crosses a thread boundary).
const T0 = Date.UTC(2026, 2, 1);
const DRIVERS = ['sqlite', 'postgres'] as const;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
let dbs = 0;

async function targetFor(driver: (typeof DRIVERS)[number]): Promise<StorageTarget> {
  if (driver === 'postgres') return { driver, url: await (await sharedPostgres()).createDatabase(`int${process.pid}_${++dbs}`), poolSize: 2, statementTimeoutMs: 5000 };
  const dir = tempDir();
  dirs.push(dir);
  return { driver, dataDir: dir };
}

async function withStore(driver: (typeof DRIVERS)[number], fn: (store: Store, target: StorageTarget) => Promise<void>): Promise<void> {
  const target = await targetFor(driver);
  const store = openStore(target);
  try {
    await fn(store, target);
  } finally {
    store.close();
  }
}

const SECRET_URL = 'https://hooks.example/services/T0/B0/TOPSECRETURLKEY';
const SECRET_AUTH = 'Bearer TOPSECRETBEARER';
const plainSettings = { url: SECRET_URL, secret: 'TOPSECRETHMAC', headers: { Authorization: SECRET_AUTH, 'X-Team': 'ops' }, timeout_seconds: 10 };

for (const driver of DRIVERS) {
  test(`${driver}: an integration is stored with its secrets sealed (the row's bytes hold none), handed out masked, opened only from sealedSecrets`, async () => {
    await withStore(driver, async (store) => {
      const box = secretBox(randomBytes(32));
      const write = (settings: Record<string, unknown>, name = 'ops-hook'): IntegrationWrite => ({ name, kind: 'webhook', enabled: true, provisioned: false, ...sealSettings('webhook', settings, box.seal) });
      const created = await store.async.integrations.insert('int_one', write(plainSettings), T0);
      assert.deepEqual(created, {
        uuid: 'int_one',
        name: 'ops-hook',
        kind: 'webhook',
        enabled: true,
        settings: { url: MASK, secret: MASK, headers: { Authorization: MASK, 'X-Team': MASK }, timeout_seconds: 10 },
        provisioned: false,
        lastTestAt: null,
        lastTestResult: null,
        createdAt: T0,
        updatedAt: T0,
      });
      const raw = JSON.stringify(rawDb(store).prepare('SELECT * FROM integrations').all());
      for (const s of ['TOPSECRET', 'hooks.example', SECRET_AUTH]) assert.ok(!raw.includes(s), `the stored row does not contain ${s}`);
      assert.ok(raw.includes(`v1:${box.keyId}:`), 'it holds sealed texts');
      assert.deepEqual(await store.async.integrations.get('int_one'), created);
      assert.deepEqual(store.integrations.getByName('ops-hook'), created);
      assert.deepEqual(await store.async.integrations.list(), [created]);
      assert.ok(!JSON.stringify(await store.async.integrations.list()).includes('v1:'), 'list and get never carry a sealed blob');

      const sealed = (await store.async.integrations.sealedSecrets('int_one'))!;
      const stored = openSettings(created.settings, sealed, box.open);
      assert.deepEqual(stored, plainSettings);
      assert.equal(await store.async.integrations.sealedSecrets('int_none'), undefined);

      // An update as the API will do it: `***` kept, a new value replaces, the rest as sent.
      const incoming = { url: MASK, secret: 'NEWHMAC', headers: { Authorization: MASK }, timeout_seconds: 20 };
      const merged = keepMaskedSecrets('webhook', incoming, stored);
      const updated = (await store.async.integrations.update('int_one', write(merged, 'ops-hook-2'), T0 + 1000))!;
      assert.equal(updated.name, 'ops-hook-2');
      assert.equal(updated.updatedAt, T0 + 1000);
      assert.deepEqual(openSettings(updated.settings, store.integrations.sealedSecrets('int_one')!, box.open), {
        url: SECRET_URL,
        secret: 'NEWHMAC',
        headers: { Authorization: SECRET_AUTH },
        timeout_seconds: 20,
      });
      assert.equal(await store.async.integrations.update('int_none', write(merged), T0), undefined);

      assert.equal(await store.async.integrations.setEnabled('int_one', false, T0 + 2000), true);
      assert.equal(await store.async.integrations.recordTest('int_one', T0 + 3000, '200 OK'), true);
      const after = (await store.async.integrations.get('int_one'))!;
      assert.deepEqual([after.enabled, after.lastTestAt, after.lastTestResult, after.updatedAt], [false, T0 + 3000, '200 OK', T0 + 2000]);
      assert.equal(await store.async.integrations.delete('int_one'), true);
      assert.equal(await store.async.integrations.delete('int_one'), false);
      assert.deepEqual(await store.async.integrations.list(), []);
    });
  });

  test(`${driver}: a write whose secrets are not sealed is refused before any row is written`, async () => {
    await withStore(driver, async (store) => {
      const plain: IntegrationWrite = { name: 'leak', kind: 'slack', enabled: true, provisioned: false, settings: { url: SECRET_URL }, secrets: [] };
      await assert.rejects(store.async.integrations.insert('int_leak', plain, T0), /secret url holds a value, not \*\*\*/);
      const fake: IntegrationWrite = { ...plain, settings: { url: MASK }, secrets: [{ path: ['url'], sealed: SECRET_URL }] };
      await assert.rejects(store.async.integrations.insert('int_leak', fake, T0), /secret url is not a sealed text/);
      const missing: IntegrationWrite = { ...plain, settings: { url: MASK }, secrets: [] };
      assert.throws(() => store.integrations.insert('int_leak', missing, T0), /do not match the masked settings/);
      assert.deepEqual(rawDb(store).prepare('SELECT * FROM integrations').all(), []);
    });
  });

  test(`${driver}: escalation policies: CRUD, steps with integration/user/schedule targets, the policies using an integration`, async () => {
    await withStore(driver, async (store) => {
      const w = (name: string, targets: string[]): EscalationPolicyWrite => ({
        name,
        team: name === 'night' ? 'ops' : null,
        steps: [
          { delayMinutes: 0, targets: targets.map((uuid) => ({ type: 'integration' as const, uuid })) },
          { delayMinutes: 15, targets: [{ type: 'user', uuid: 'user_a' }, { type: 'schedule', uuid: 'sch_b' }] },
        ],
        repeatCount: 2,
        repeatEveryMinutes: 30,
        provisioned: name === 'night',
      });
      const night = await store.async.escalationPolicies.insert('ep_night', w('night', ['int_a', 'int_b']), T0);
      await store.async.escalationPolicies.insert('ep_day', w('day', ['int_b']), T0);
      assert.deepEqual(night, { uuid: 'ep_night', createdAt: T0, updatedAt: T0, policyRepeats: 0, ...w('night', ['int_a', 'int_b']) }, 'a write without policyRepeats reads back as 0 (run once)');
      assert.deepEqual((await store.async.escalationPolicies.list()).map((p) => p.name), ['day', 'night']);
      assert.deepEqual(await store.async.escalationPolicies.usingTarget('integration', 'int_b'), [
        { uuid: 'ep_day', name: 'day' },
        { uuid: 'ep_night', name: 'night' },
      ]);
      assert.deepEqual(await store.async.escalationPolicies.usingTarget('integration', 'int_a'), [{ uuid: 'ep_night', name: 'night' }]);
      assert.deepEqual(await store.async.escalationPolicies.usingTarget('user', 'user_a'), [
        { uuid: 'ep_day', name: 'day' },
        { uuid: 'ep_night', name: 'night' },
      ]);
      const stepsRaw = rawDb(store).prepare<[], { steps: string }>("SELECT steps FROM escalation_policies WHERE uuid = 'ep_day'").get()!.steps;
      assert.deepEqual(JSON.parse(stepsRaw)[0], { delay_minutes: 0, targets: [{ type: 'integration', uuid: 'int_b' }] }, 'steps stored in the API shape');
      const changed = (await store.async.escalationPolicies.update('ep_day', { ...w('day', []), repeatCount: 0, repeatEveryMinutes: null }, T0 + 5))!;
      assert.deepEqual([changed.repeatCount, changed.repeatEveryMinutes, changed.updatedAt], [0, null, T0 + 5]);
      assert.deepEqual(await store.async.escalationPolicies.usingTarget('integration', 'int_b'), [{ uuid: 'ep_night', name: 'night' }]);
      assert.equal((await store.async.escalationPolicies.getByName('night'))?.uuid, 'ep_night');
      assert.equal(await store.async.escalationPolicies.delete('ep_night'), true);
      assert.equal(await store.async.escalationPolicies.get('ep_night'), undefined);
    });
  });

  test(`${driver}: the audit log: append, newest first, filters by resource type, actor and time, pages by cursor; diffs masked`, async () => {
    await withStore(driver, async (store) => {
      const entry = (i: number, over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
        at: T0 + Math.floor(i / 2) * 1000, // two entries per second: the cursor must break ties by id
        actor: i % 3 === 0 ? { type: 'token', id: 'key_1', name: 'ci' } : { type: 'user', id: 'user_a', name: 'Ann' },
        action: 'update',
        resourceType: i % 2 === 0 ? 'integration' : 'monitor',
        resourceUuid: `res_${i}`,
        resourceName: `r${i}`,
        diff: { name: { before: `r${i - 1}`, after: `r${i}` } },
        ...over,
      });
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) ids.push(await store.async.auditLog.append(entry(i)));
      assert.deepEqual([...ids].sort((a, b) => a - b), ids, 'ids ascend');

      const all = await store.async.auditLog.page({}, 100);
      assert.deepEqual(all.entries.map((e) => e.resourceUuid), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0].map((i) => `res_${i}`));
      assert.equal(all.next, null);
      assert.deepEqual(all.entries.at(-1), { id: ids[0], ...entry(0) });

      const seen: string[] = [];
      let cursor = null;
      do {
        const p: Awaited<ReturnType<Store['auditLog']['page']>> = await store.async.auditLog.page({}, 3, cursor);
        assert.ok(p.entries.length <= 3);
        seen.push(...p.entries.map((e) => e.resourceUuid));
        cursor = p.next;
      } while (cursor);
      assert.deepEqual(seen, all.entries.map((e) => e.resourceUuid), 'pages of 3 walk the whole log once, ties on `at` included');

      const ints = await store.async.auditLog.page({ resourceType: 'integration' }, 100);
      assert.deepEqual(ints.entries.map((e) => e.resourceUuid), ['res_8', 'res_6', 'res_4', 'res_2', 'res_0']);
      const tokens = await store.async.auditLog.page({ actorType: 'token', actorId: 'key_1' }, 100);
      assert.deepEqual(tokens.entries.map((e) => e.resourceUuid), ['res_9', 'res_6', 'res_3', 'res_0']);
      const window = await store.async.auditLog.page({ since: T0 + 1000, until: T0 + 3000, resourceType: 'monitor' }, 100);
      assert.deepEqual(window.entries.map((e) => e.resourceUuid), ['res_5', 'res_3']);
      assert.deepEqual((await store.async.auditLog.page({ resourceUuid: 'res_7' }, 100)).entries.map((e) => e.id), [ids[7]]);

      // A masked integration diff goes in and comes out without the secret.
      const diff = auditDiff({ name: 'h', settings: plainSettings }, { name: 'h', settings: { ...plainSettings, url: SECRET_URL + 'X' } }, integrationSecretTest('webhook'));
      await store.async.auditLog.append(entry(10, { diff, resourceType: 'integration', resourceUuid: 'int_x' }));
      const got = (await store.async.auditLog.page({ resourceUuid: 'int_x' }, 1)).entries[0]!;
      assert.deepEqual(got.diff, { 'settings.url': { before: MASK, after: MASK } });
      assert.ok(!JSON.stringify(rawDb(store).prepare('SELECT * FROM audit_log').all()).includes('TOPSECRET'));
    });
  });

  test(`${driver}: the secret key check: the first start records the key; the same key passes; another key is refused naming the fix`, async () => {
    const target = await targetFor(driver);
    const a = openStore(target);
    const b = openStore(target);
    const dataA = tempDir();
    const dataB = tempDir();
    dirs.push(dataA, dataB);
    try {
      const first = await openSecretBox(a, { dataDir: dataA, keyText: undefined, now: T0 });
      assert.equal(first.created, true);
      assert.equal(statSync(join(dataA, 'secret.key')).mode & 0o777, 0o600);
      assert.deepEqual(await a.async.secretKey.get(), { keyId: first.box.keyId, keyCheck: first.box.keyCheck(), createdAt: T0 });
      const again = await openSecretBox(a, { dataDir: dataA, keyText: undefined, now: T0 + 1 });
      assert.equal(again.created, false);
      assert.equal(again.box.keyId, first.box.keyId);

      // A second instance with a data dir of its own: a new key file, not the database's key.
      await assert.rejects(openSecretBox(b, { dataDir: dataB, keyText: undefined, now: T0 + 2 }), (e: unknown) => {
        assert.ok(e instanceof AppError && e.code === 'secrets.key_mismatch', String(e));
        assert.match(e.message, new RegExp(`key ${first.box.keyId}`));
        assert.match(e.message, /copy secret\.key .* or set PHAROS_SECRET_KEY to the same key on every instance/);
        return true;
      });
      // The operator's fix: the same key through PHAROS_SECRET_KEY.
      const key = (await import('node:fs')).readFileSync(join(dataA, 'secret.key'), 'utf8');
      const fixed = await openSecretBox(b, { dataDir: dataB, keyText: key, now: T0 + 3 });
      assert.equal(fixed.source, 'PHAROS_SECRET_KEY');
      assert.equal(fixed.box.open(first.box.seal('x')), 'x');
      assert.equal((await b.async.secretKey.get())!.createdAt, T0, 'the recorded key is never replaced');
    } finally {
      b.close();
      a.close();
    }
  });
}
