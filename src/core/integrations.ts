import { auditDiff, integrationSecretTest, type AuditActor } from '../domain/audit.ts';
import { CHANNEL_KINDS, CHANNEL_TYPES, type ChannelType } from '../domain/channels/index.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { keepMaskedSecrets, openSettings, sealSettings, type Integration, type IntegrationSettings, type IntegrationWrite } from '../domain/integration.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, invalid, notFound } from '../lib/errors.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import type { ChannelTester, ChannelTestResult } from './channels.ts';

/**
 * Integrations as stored objects (issue 32 points 1, 2): create, partial update, delete and "send
 * test" for the API, the console, provisioning from config.yaml and the Kuma import. Secrets are
 * sealed here, on the thread that holds the SecretBox, before a procedure sees them: procedures get
 * sealed values and masked settings only. Every write appends its audit entry in its own procedure.
 */

/** Longest integration name, characters. */
export const INTEGRATION_NAME_MAX = 100;

/** What creating an integration takes (settings: the kind's fields without `name`/`type`, plaintext). */
export interface IntegrationInput {
  name: string;
  kind: ChannelType;
  enabled?: boolean | undefined;
  settings: IntegrationSettings;
}

/** A partial update: fields left out keep their values; settings are merged key by key. */
export interface IntegrationPatch {
  name?: string | undefined;
  enabled?: boolean | undefined;
  settings?: IntegrationSettings | undefined;
}

/** Who may write provisioned integrations: provisioning itself (config.yaml), nobody else. */
export interface WriteOptions {
  /** True for provisioning from config.yaml: writes provisioned objects and marks them so. */
  provisioning?: boolean;
}

/** The audit view of an integration: what a diff compares (plaintext or masked settings). */
const auditView = (i: { name: string; kind: ChannelType; enabled: boolean; settings: IntegrationSettings }) => ({ name: i.name, kind: i.kind, enabled: i.enabled, settings: i.settings });

/**
 * Checks a name: 1..{@link INTEGRATION_NAME_MAX} characters, no control characters, trimmed.
 * @throws AppError 400 naming `name`
 */
export function checkIntegrationName(name: string): string {
  const n = name.trim();
  if (n.length === 0) throw invalid('name', 'must not be empty');
  if (n.length > INTEGRATION_NAME_MAX) throw invalid('name', `must be at most ${INTEGRATION_NAME_MAX} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(n)) throw invalid('name', 'must not contain control characters');
  return n;
}

/**
 * Validates plaintext settings against the kind's schema (domain/channels/<kind>.ts) and returns them
 * with its defaults applied, without `name` and `type`. Each 400 names `settings.<field>` and the rule.
 * @throws AppError 400 `validation.invalid`
 */
export function validateSettings(kind: ChannelType, settings: IntegrationSettings): IntegrationSettings {
  for (const k of ['name', 'type'] as const) {
    if (k in settings) throw invalid(`settings.${k}`, k === 'name' ? "is the integration's name, not a setting" : 'is the integration type, not a setting');
  }
  // The schema's name rule is for config.yaml's channel names; an integration's name is checked apart.
  const parsed = CHANNEL_KINDS[kind].schema.safeParse({ ...settings, name: 'integration', type: kind });
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => ({ path: ['settings', ...i.path.map(String)].join('.'), message: i.message }));
    const first = details[0]!;
    throw new AppError(400, 'validation.invalid', `${first.path}: ${first.message}`, details);
  }
  const { name: _n, type: _t, ...rest } = parsed.data as Record<string, unknown>;
  return rest;
}

/** The kind of a body, or 400 naming `type`. */
export function checkKind(kind: string): ChannelType {
  if (!(CHANNEL_TYPES as string[]).includes(kind)) throw invalid('type', `must be one of ${CHANNEL_TYPES.join(', ')}`);
  return kind as ChannelType;
}

/** {@link keepMaskedSecrets} whose 400 names the field as the API spells it (`settings.<path>`). */
function keepMasked(kind: ChannelType, incoming: IntegrationSettings, stored: IntegrationSettings): IntegrationSettings {
  try {
    return keepMaskedSecrets(kind, incoming, stored);
  } catch (e) {
    if (!(e instanceof AppError) || e.status !== 400) throw e;
    const path = e.details?.[0]?.path ?? '';
    const rule = e.details?.[0]?.message ?? e.message;
    throw invalid(`settings.${path}`, rule);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `patch` merged key by key into `base` (nested objects merged too; arrays replace; `null` removes the
 * key, as in a JSON merge patch, RFC 7396: how a client clears an optional field or drops a header).
 */
function mergeSettings(base: IntegrationSettings, patch: IntegrationSettings): IntegrationSettings {
  const out: IntegrationSettings = structuredClone(base);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    out[k] = isObject(v) && isObject(out[k]) ? mergeSettings(out[k], v) : structuredClone(v);
  }
  return out;
}

function mustGet(tx: Store, uuid: string): Integration {
  const i = tx.integrations.get(uuid);
  if (!i) throw notFound('integrations', 'Integration');
  return i;
}

function refuseProvisioned(i: Integration, provisioning: boolean | undefined): void {
  if (i.provisioned && !provisioning) {
    throw conflict('integrations.provisioned', `integration "${i.name}" is declared in config.yaml: change it there (then reload with SIGHUP)`);
  }
}

function refuseTakenName(tx: Store, name: string, uuid: string | null): void {
  const other = tx.integrations.getByName(name);
  if (other && other.uuid !== uuid) throw new AppError(409, 'integrations.name_taken', `name: "${name}" is taken by another integration (${other.uuid})`, [{ path: 'name', message: 'is taken' }]);
}

interface AuditArgs {
  actor: AuditActor;
  now: number;
}

/** Inserts an integration (sealed) with its audit entry. @throws AppError 409 name taken */
const createIntegration = procedure('integrations.create', (tx: Store, a: AuditArgs & { uuid: string; write: IntegrationWrite }): Integration => {
  refuseTakenName(tx, a.write.name, null);
  const created = tx.integrations.insert(a.uuid, a.write, a.now);
  tx.auditLog.append({ at: a.now, actor: a.actor, action: 'create', resourceType: 'integration', resourceUuid: a.uuid, resourceName: created.name, diff: auditDiff(null, auditView(created), integrationSecretTest(created.kind)) });
  return created;
});

/**
 * Replaces an integration read at `expectedUpdatedAt` (else 409 `integrations.changed`: the caller
 * reads again and retries), with the audit entry whose diff the caller computed from plaintext.
 * @throws AppError 404, 409 provisioned / name taken / changed
 */
const updateIntegration = procedure(
  'integrations.update',
  (tx: Store, a: AuditArgs & { uuid: string; write: IntegrationWrite; expectedUpdatedAt: number; provisioning: boolean; diff: Record<string, { before?: unknown; after?: unknown }> }): Integration => {
    const current = mustGet(tx, a.uuid);
    refuseProvisioned(current, a.provisioning);
    if (current.updatedAt !== a.expectedUpdatedAt) throw conflict('integrations.changed', `integration "${current.name}" changed meanwhile: try again`);
    refuseTakenName(tx, a.write.name, a.uuid);
    const updated = tx.integrations.update(a.uuid, a.write, Math.max(a.now, current.updatedAt + 1))!;
    if (Object.keys(a.diff).length > 0) tx.auditLog.append({ at: a.now, actor: a.actor, action: 'update', resourceType: 'integration', resourceUuid: a.uuid, resourceName: updated.name, diff: a.diff });
    return updated;
  },
);

/**
 * Deletes an integration no policy alerts, with its audit entry.
 * @throws AppError 404; 409 `integrations.provisioned`, `integrations.in_use` naming the policies
 */
const deleteIntegration = procedure('integrations.delete', (tx: Store, a: AuditArgs & { uuid: string; provisioning: boolean }): Integration => {
  const current = mustGet(tx, a.uuid);
  refuseProvisioned(current, a.provisioning);
  const users = tx.escalationPolicies.usingTarget('integration', a.uuid);
  if (users.length > 0) {
    throw conflict('integrations.in_use', `integration "${current.name}" is used by escalation ${users.length === 1 ? 'policy' : 'policies'} ${users.map((p) => `"${p.name}" (${p.uuid})`).join(', ')}: remove it from their steps first`);
  }
  tx.integrations.delete(a.uuid);
  tx.auditLog.append({ at: a.now, actor: a.actor, action: 'delete', resourceType: 'integration', resourceUuid: a.uuid, resourceName: current.name, diff: auditDiff(auditView(current), null, integrationSecretTest(current.kind)) });
  return current;
});

/** Records a test's time and outcome (no audit entry: nothing about the integration changed). */
const recordTest = procedure('integrations.recordTest', (tx: Store, a: { uuid: string; at: number; result: string }): boolean => tx.integrations.recordTest(a.uuid, a.at, a.result));

/** A test's outcome as kept in `last_test_result`: `ok` or `failed`, then each answer's status. */
function testSummary(r: ChannelTestResult): string {
  const answers = r.answers.map((x) => `${x.kind} → ${x.status ?? 'no answer'}`).join(', ');
  return `${r.ok ? 'ok' : 'failed'}${answers ? `: ${answers}` : ''}${r.error ? ` (${r.error})` : ''}`.slice(0, 2000);
}

/** Integrations service (issue 32). */
export function integrationsService(deps: { store: Store; clock: Clock; secrets: SecretBox | undefined; tester?: ChannelTester | undefined }) {
  const { store, clock } = deps;
  const box = (): SecretBox => {
    if (!deps.secrets) throw new AppError(503, 'secrets.unavailable', 'integrations need the secret key, which this process has not loaded');
    return deps.secrets;
  };
  const mustRead = async (uuid: string): Promise<Integration> => {
    const i = await store.async.integrations.get(uuid);
    if (!i) throw notFound('integrations', 'Integration');
    return i;
  };
  /** The plaintext settings of a stored integration (secrets opened). */
  const plaintext = async (i: Integration): Promise<IntegrationSettings> => {
    const sealed = (await store.async.integrations.sealedSecrets(i.uuid)) ?? [];
    const b = sealed.length > 0 ? box() : undefined;
    return openSettings(i.settings, sealed, (s) => b!.open(s));
  };
  const writeOf = (name: string, kind: ChannelType, enabled: boolean, provisioned: boolean, plain: IntegrationSettings): IntegrationWrite => {
    const b = box();
    return { name, kind, enabled, provisioned, ...sealSettings(kind, plain, (t) => b.seal(t)) };
  };

  return {
    /** Every integration, by name (secrets `***`). */
    list: (): Promise<Integration[]> => store.async.integrations.list(),
    /** One (secrets `***`). @throws (rejects) AppError 404 `integrations.not_found` */
    get: mustRead,
    /** One by name, or undefined (provisioning, the import). */
    getByName: (name: string): Promise<Integration | undefined> => store.async.integrations.getByName(name),
    /** The policies whose steps alert `uuid`, `{uuid, name}` by name. */
    usedBy: (uuid: string): Promise<Array<{ uuid: string; name: string }>> => store.async.escalationPolicies.usingTarget('integration', uuid),
    /**
     * The plaintext settings of `uuid` for sending (alerting), never for an answer.
     * @throws (rejects) AppError 404; `secrets.wrong_key` / `secrets.corrupt` from the box
     */
    async plaintextSettings(uuid: string): Promise<IntegrationSettings> {
      return plaintext(await mustRead(uuid));
    },
    /**
     * Creates an integration: settings validated by the kind's schema (defaults applied), secrets sealed.
     * @throws (rejects) AppError 400 naming the field (`name`, `type`, `settings.<field>`; a secret sent as
     *   `***`, nothing to keep); 409 `integrations.name_taken`
     */
    async create(input: IntegrationInput, actor: AuditActor, opts: WriteOptions = {}): Promise<Integration> {
      const name = checkIntegrationName(input.name);
      const kind = checkKind(input.kind);
      const plain = validateSettings(kind, keepMasked(kind, input.settings, {}));
      const write = writeOf(name, kind, input.enabled ?? true, opts.provisioning === true, plain);
      return store.async.tx(createIntegration, { uuid: newId(ID_PREFIX.integration), write, actor, now: clock.now() });
    },
    /**
     * Partial update: `settings` merged key by key into the stored plaintext, `***` keeping a stored
     * secret, the whole validated again; name and enabled replaced when given. Writes nothing and
     * appends no entry when nothing changed.
     * @throws (rejects) AppError 404; 400 naming the field; 409 `integrations.provisioned`, `integrations.name_taken`
     */
    async update(uuid: string, patch: IntegrationPatch, actor: AuditActor, opts: WriteOptions = {}): Promise<Integration> {
      for (let attempt = 0; ; attempt++) {
        const current = await mustRead(uuid);
        refuseProvisioned(current, opts.provisioning);
        const before = await plaintext(current);
        const name = patch.name === undefined ? current.name : checkIntegrationName(patch.name);
        // Provisioning replaces the settings whole (config.yaml is the whole truth); others merge key by key.
        const given = patch.settings === undefined ? undefined : opts.provisioning === true ? patch.settings : mergeSettings(before, patch.settings);
        const merged = given === undefined ? before : keepMasked(current.kind, given, before);
        const after = given === undefined ? before : validateSettings(current.kind, merged);
        const enabled = patch.enabled ?? current.enabled;
        const provisioned = opts.provisioning === true ? true : current.provisioned;
        const diff = auditDiff(auditView({ ...current, settings: before }), auditView({ name, kind: current.kind, enabled, settings: after }), integrationSecretTest(current.kind));
        if (provisioned !== current.provisioned) diff.provisioned = { before: current.provisioned, after: provisioned };
        if (Object.keys(diff).length === 0) return current;
        try {
          return await store.async.tx(updateIntegration, { uuid, write: writeOf(name, current.kind, enabled, provisioned, after), expectedUpdatedAt: current.updatedAt, provisioning: opts.provisioning === true, diff, actor, now: clock.now() });
        } catch (e) {
          // Another write landed between the read and this one: read it again (the diff must be against it).
          if (!(e instanceof AppError && e.code === 'integrations.changed') || attempt >= 4) throw e;
        }
      }
    },
    /**
     * Marks a provisioned integration as no longer declared in config.yaml (kept because a policy uses it).
     * @throws (rejects) AppError 404
     */
    async unprovision(uuid: string, actor: AuditActor): Promise<Integration> {
      const current = await mustRead(uuid);
      if (!current.provisioned) return current;
      const plain = await plaintext(current);
      return store.async.tx(updateIntegration, {
        uuid,
        write: writeOf(current.name, current.kind, current.enabled, false, plain),
        expectedUpdatedAt: current.updatedAt,
        provisioning: true,
        diff: { provisioned: { before: true, after: false } },
        actor,
        now: clock.now(),
      });
    },
    /**
     * Deletes an integration that no escalation policy uses.
     * @throws (rejects) AppError 404; 409 `integrations.provisioned`; 409 `integrations.in_use` naming the policies
     */
    async delete(uuid: string, actor: AuditActor, opts: WriteOptions = {}): Promise<Integration> {
      return store.async.tx(deleteIntegration, { uuid, provisioning: opts.provisioning === true, actor, now: clock.now() });
    },
    /**
     * Sends the sample alert through the stored settings (secrets opened here) and records when and
     * how it went (`last_test_at`, `last_test_result`).
     * @returns the provider's answers (src/core/channels.ts `ChannelTestResult`)
     * @throws (rejects) AppError 404; 503 `channels.unavailable` without alerting wired
     */
    async test(uuid: string, _actor: AuditActor): Promise<ChannelTestResult> {
      const current = await mustRead(uuid);
      if (!deps.tester) throw new AppError(503, 'channels.unavailable', 'Channel tests need the alerting part of Pharos, which is not running here');
      const settings = await plaintext(current);
      let result: ChannelTestResult;
      try {
        result = await deps.tester({ name: current.name, kind: current.kind, settings });
      } catch (e) {
        result = { channel: current.name, type: current.kind, ok: false, answers: [], error: (e as Error).message };
      }
      await store.async.tx(recordTest, { uuid, at: clock.now(), result: testSummary(result) });
      return result;
    },
  };
}

/** The integrations service's interface. */
export type IntegrationsService = ReturnType<typeof integrationsService>;
