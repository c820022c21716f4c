import type { ChannelType } from '../domain/channels/index.ts';
import { MASK, secretPaths, type Integration, type IntegrationSettings, type IntegrationWrite, type SealedSecret } from '../domain/integration.ts';
import { isSealed } from '../lib/secret-box.ts';
import type { Db } from './db.ts';

interface Row {
  uuid: string;
  name: string;
  kind: string;
  enabled: number;
  settings: string;
  provisioned: number;
  last_test_at: number | null;
  last_test_result: string | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'uuid, name, kind, enabled, settings, provisioned, last_test_at, last_test_result, created_at, updated_at';

const toIntegration = (r: Row): Integration => ({
  uuid: r.uuid,
  name: r.name,
  kind: r.kind as ChannelType,
  enabled: r.enabled === 1,
  settings: JSON.parse(r.settings) as IntegrationSettings,
  provisioned: r.provisioned === 1,
  lastTestAt: r.last_test_at,
  lastTestResult: r.last_test_result,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The last line of defence against a plaintext secret in a row: every secret path of the settings
 * must hold `***`, every sealed value must be a sealed text, and they must name the same paths.
 * @throws Error (a programming error: the caller skipped domain/integration.ts `sealSettings`)
 */
function assertSealed(w: IntegrationWrite): void {
  const paths = secretPaths(w.kind, w.settings);
  const valueAt = (p: string[]) => p.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], w.settings);
  const key = (ps: string[][]) => ps.map((p) => JSON.stringify(p)).sort().join();
  const unmasked = paths.find((p) => valueAt(p) !== MASK);
  if (unmasked) throw new Error(`store.integrations: ${w.name}: the secret ${unmasked.join('.')} holds a value, not ${MASK} (use sealSettings)`);
  const unsealed = w.secrets.find((s) => !isSealed(s.sealed));
  if (unsealed) throw new Error(`store.integrations: ${w.name}: the secret ${unsealed.path.join('.')} is not a sealed text (use sealSettings)`);
  if (key(paths) !== key(w.secrets.map((s) => s.path))) throw new Error(`store.integrations: ${w.name}: the sealed secrets do not match the masked settings (use sealSettings)`);
}

/**
 * Integrations (`int_…`, issue 32): table `integrations`. Secrets are sealed by the caller (core,
 * with the installation's SecretBox: domain/integration.ts `sealSettings`), never here: the store
 * holds no key (on PostgreSQL it also runs on the store host thread). What it hands out has `***` at
 * every secret; the sealed values leave only through {@link sealedSecrets}, for the code that sends
 * or merges, so an API answer built from `get`/`list` cannot carry a secret or a sealed blob.
 * Writes refuse a row whose secrets are not sealed (Error).
 */
export function integrationsStore(db: Db) {
  const all = db.prepare<[], Row>(`SELECT ${COLUMNS} FROM integrations ORDER BY name, id`);
  const byUuid = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM integrations WHERE uuid = ?`);
  const byName = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM integrations WHERE name = ?`);
  const secretsOf = db.prepare<[string], { secrets: string }>('SELECT secrets FROM integrations WHERE uuid = ?');
  const insert = db.prepare(
    `INSERT INTO integrations(uuid, name, kind, enabled, settings, secrets, provisioned, created_at, updated_at)
     VALUES (@uuid, @name, @kind, @enabled, @settings, @secrets, @provisioned, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE integrations SET name=@name, kind=@kind, enabled=@enabled, settings=@settings, secrets=@secrets, provisioned=@provisioned, updated_at=@now
     WHERE uuid=@uuid`,
  );
  const setEnabled = db.prepare('UPDATE integrations SET enabled = ?, updated_at = ? WHERE uuid = ?');
  const recordTest = db.prepare('UPDATE integrations SET last_test_at = ?, last_test_result = ? WHERE uuid = ?');
  const del = db.prepare('DELETE FROM integrations WHERE uuid = ?');
  const params = (uuid: string, w: IntegrationWrite, now: number) => {
    assertSealed(w);
    return {
      uuid,
      name: w.name,
      kind: w.kind,
      enabled: w.enabled ? 1 : 0,
      settings: JSON.stringify(w.settings),
      secrets: JSON.stringify(w.secrets),
      provisioned: w.provisioned ? 1 : 0,
      now,
    };
  };
  const get = (uuid: string): Integration | undefined => {
    const r = byUuid.get(uuid);
    return r && toIntegration(r);
  };
  return {
    /** Every integration, by name. */
    list: (): Integration[] => all.all().map(toIntegration),
    /** One by uuid, or undefined. */
    get,
    /** One by name (names are unique), or undefined. */
    getByName: (name: string): Integration | undefined => {
      const r = byName.get(name);
      return r && toIntegration(r);
    },
    /**
     * The sealed secrets of `uuid` (undefined: no such integration). Only for code that opens them to
     * send or to apply the `***` merge rule; never for an answer.
     */
    sealedSecrets: (uuid: string): SealedSecret[] | undefined => {
      const r = secretsOf.get(uuid);
      return r && (JSON.parse(r.secrets) as SealedSecret[]);
    },
    /**
     * Adds one; `now` epoch ms.
     * @throws the driver's unique-constraint error for a taken uuid or name (check `getByName` first); Error for unsealed secrets
     */
    insert(uuid: string, w: IntegrationWrite, now: number): Integration {
      insert.run(params(uuid, w, now));
      return get(uuid)!;
    },
    /**
     * Replaces one's fields (settings and secrets whole); undefined when there is none.
     * @throws as {@link insert}
     */
    update(uuid: string, w: IntegrationWrite, now: number): Integration | undefined {
      return update.run(params(uuid, w, now)).changes === 1 ? get(uuid) : undefined;
    },
    /** Turns one on or off; false when there is none. */
    setEnabled: (uuid: string, enabled: boolean, now: number): boolean => setEnabled.run(enabled ? 1 : 0, now, uuid).changes === 1,
    /** Keeps the time (epoch ms) and outcome of a "send test" (the provider's answer, shown to people: no secrets in it). */
    recordTest: (uuid: string, at: number, result: string): boolean => recordTest.run(at, result, uuid).changes === 1,
    /** Removes one (check `escalationPolicies.usingIntegration` first: 409); false when there is none. */
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
  };
}

/** The integrations store's interface. */
export type IntegrationsStore = ReturnType<typeof integrationsStore>;
