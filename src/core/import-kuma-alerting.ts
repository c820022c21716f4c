import { auditDiff, integrationSecretTest, type AuditActor } from '../domain/audit.ts';
import type { ChannelType } from '../domain/channels/index.ts';
import type { EscalationPolicy, EscalationPolicyWrite } from '../domain/escalation-policy.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { sealSettings, type IntegrationSettings, type SealedSecret } from '../domain/integration.ts';
import { kumaPolicyName, mapNotification } from '../domain/kuma/notifications.ts';
import type { KumaNotification } from '../domain/kuma/types.ts';
import type { Store } from '../store/index.ts';
import { recordAudit } from './audit-log.ts';
import { policyAuditView } from './escalation-policies.ts';

/**
 * The alerting half of `pharos import kuma` (issue 32 point 6): Kuma notifications become
 * integrations, each set of notifications a monitor sends to becomes one escalation policy (one step
 * at once to all of them), and each imported monitor is linked to its policy. What it creates is
 * remembered in `kuma_imports` (the marker), so a later run reuses it instead of creating it again:
 * kind `notification` (Kuma id → `int_…`), `policy:<ids>` (the sorted notification ids, Kuma id 0 →
 * `ep_…`) and `monitor-policy` (Kuma monitor id → the policy it was linked to, once: a person who
 * takes the policy off a monitor later does not see it come back).
 */

/** Longest name the import gives an integration or a policy (the API's limit). */
const NAME_MAX = 100;

/** One line of the import report (shared with core/import-kuma.ts). */
export interface KumaImportItem {
  kind: 'monitor' | 'healthcheck' | 'statuspage' | 'maintenance' | 'notification' | 'policy';
  /** The Kuma object's id (null for a policy: it stands for a set of notifications). */
  kumaId: number | null;
  name: string;
  /**
   * `created` now; `linked`: imported by an earlier run, linked to its escalation policy now;
   * `unchanged`: imported by an earlier run; `skipped`: not imported (see `reason`).
   */
  result: 'created' | 'linked' | 'unchanged' | 'skipped';
  uuid?: string;
  reason?: string;
  /** What changed on the way, and what was not carried (rounded interval, dropped header, …). */
  notes: string[];
  /** For a push monitor turned healthcheck: its new ping URL. */
  pingUrl?: string;
}

/** A notification mapped and sealed before the transaction: the store only ever sees sealed secrets. */
export type PreparedNotification =
  | { n: KumaNotification; kind: 'skipped'; reason: string }
  | { n: KumaNotification; kind: 'integration'; integration: { kind: ChannelType; enabled: boolean; plain: IntegrationSettings; settings: IntegrationSettings; secrets: SealedSecret[] }; notes: string[] };

/**
 * Maps every notification (domain/kuma/notifications.ts) and seals its secrets with `seal`
 * (lib/secret-box.ts `SecretBox.seal`), outside of any transaction.
 */
export function prepareNotifications(notifications: readonly KumaNotification[], seal: (plaintext: string) => string): PreparedNotification[] {
  return notifications.map((n) => {
    const m = mapNotification(n);
    if (m.kind === 'skipped') return { n, kind: 'skipped', reason: m.reason };
    const { kind, enabled, settings } = m.integration;
    return { n, kind: 'integration', integration: { kind, enabled, plain: settings, ...sealSettings(kind, settings, seal) }, notes: m.notes };
  });
}

/** `name` trimmed, without control characters, within {@link NAME_MAX}; `fallback` when nothing is left. */
function cleanName(name: string, fallback: string): string {
  // eslint-disable-next-line no-control-regex
  const n = name.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return (n || fallback).slice(0, NAME_MAX).trim();
}

/** `wanted`, or `wanted (Kuma <id>)` and then numbered, the first that `taken` says is free. */
function freeName(wanted: string, suffix: string, taken: (name: string) => boolean): string {
  if (!taken(wanted)) return wanted;
  for (let i = 1; ; i++) {
    const tail = i === 1 ? ` (${suffix})` : ` (${suffix}, ${i})`;
    const name = wanted.slice(0, NAME_MAX - tail.length) + tail;
    if (!taken(name)) return name;
  }
}

/**
 * Writes the integrations, policies and links of one import, inside the import's transaction `tx`.
 * Items are pushed to `items` (notifications) and `policyItems` (policies, reported after them).
 */
export function kumaAlerting(tx: Store, stamp: { actor: AuditActor; now: number }, items: KumaImportItem[], policyItems: KumaImportItem[]) {
  /** Kuma notification id → the integration it is (created now or by an earlier run), and its Kuma name. */
  const integrationOf = new Map<number, { uuid: string; kumaName: string }>();
  const policies = new Map<string, EscalationPolicy | null>();
  /** Policies already in the report (each once). */
  const reported = new Set<string>();
  const reportUnchanged = (p: EscalationPolicy) => {
    if (reported.has(p.uuid)) return;
    reported.add(p.uuid);
    policyItems.push({ kind: 'policy', kumaId: null, name: p.name, result: 'unchanged', uuid: p.uuid, notes: [] });
  };

  /** Creates (or finds from an earlier run) the integration of each notification. */
  function integrations(prepared: readonly PreparedNotification[]): void {
    for (const p of prepared) {
      const item = { kind: 'notification' as const, kumaId: p.n.id, name: p.n.name };
      if (p.kind === 'skipped') {
        items.push({ ...item, result: 'skipped', reason: p.reason, notes: [] });
        continue;
      }
      const done = tx.kumaImports.uuidOf('notification', p.n.id);
      if (done) {
        const existing = tx.integrations.get(done);
        if (existing) {
          integrationOf.set(p.n.id, { uuid: existing.uuid, kumaName: p.n.name });
          items.push({ ...item, result: 'unchanged', uuid: existing.uuid, notes: [] });
        } else {
          items.push({ ...item, result: 'skipped', reason: `its integration ${done} was deleted in Pharos after an earlier import: not created again`, notes: [] });
        }
        continue;
      }
      const wanted = cleanName(p.n.name, `Kuma notification ${p.n.id}`);
      const name = freeName(wanted, `Kuma ${p.n.id}`, (x) => tx.integrations.getByName(x) !== undefined);
      const { kind, enabled, plain, settings, secrets } = p.integration;
      const created = tx.integrations.insert(newId(ID_PREFIX.integration), { name, kind, enabled, provisioned: false, settings, secrets }, stamp.now);
      tx.kumaImports.remember('notification', p.n.id, created.uuid, stamp.now);
      recordAudit(tx, stamp, { action: 'create', resourceType: 'integration', resourceUuid: created.uuid, resourceName: name, diff: auditDiff(null, { name, kind, enabled, settings: plain }, integrationSecretTest(kind)) });
      integrationOf.set(p.n.id, { uuid: created.uuid, kumaName: p.n.name });
      const notes = name === wanted ? p.notes : [`named "${name}": "${wanted}" is taken by another integration`, ...p.notes];
      items.push({ ...item, result: 'created', uuid: created.uuid, notes });
    }
  }

  /** The policy of a set of notification ids (sorted), created at its first use; null when deleted in Pharos since. */
  function policyFor(ids: number[]): EscalationPolicy | null {
    const key = ids.join(',');
    if (policies.has(key)) return policies.get(key)!;
    const marker = `policy:${key}`;
    const wanted = kumaPolicyName(ids.map((id) => cleanName(integrationOf.get(id)!.kumaName, `notification ${id}`)));
    const done = tx.kumaImports.uuidOf(marker, 0);
    let policy: EscalationPolicy | null = null;
    if (done) {
      policy = tx.escalationPolicies.get(done) ?? null;
      if (policy) reportUnchanged(policy);
      else policyItems.push({ kind: 'policy', kumaId: null, name: wanted, result: 'skipped', reason: `policy ${done} was deleted in Pharos after an earlier import: not created again`, notes: [] });
    } else {
      const name = freeName(wanted, `Kuma ${ids.join(', ')}`, (x) => tx.escalationPolicies.getByName(x) !== undefined);
      const write: EscalationPolicyWrite = { name, team: null, steps: [{ delayMinutes: 0, targets: ids.map((id) => ({ type: 'integration', uuid: integrationOf.get(id)!.uuid })) }], repeatCount: 0, repeatEveryMinutes: null, provisioned: false };
      policy = tx.escalationPolicies.insert(newId(ID_PREFIX.escalationPolicy), write, stamp.now);
      tx.kumaImports.remember(marker, 0, policy.uuid, stamp.now);
      recordAudit(tx, stamp, { action: 'create', resourceType: 'escalation_policy', resourceUuid: policy.uuid, resourceName: name, diff: auditDiff(null, policyAuditView(write)) });
      reported.add(policy.uuid);
      policyItems.push({ kind: 'policy', kumaId: null, name, result: 'created', uuid: policy.uuid, notes: name === wanted ? [] : [`"${wanted}" is taken by another policy`] });
    }
    policies.set(key, policy);
    return policy;
  }

  /**
   * Links the Pharos object `uuid` (a monitor, or a healthcheck by its `tok_` uuid) imported from
   * Kuma monitor `kumaId` to the policy of the notifications it sends to, unless an earlier run
   * linked it already or a person gave it another policy.
   * @returns whether it was linked now, and notes for the report
   */
  function link(kind: 'monitor' | 'healthcheck', uuid: string, kumaId: number, notificationIds: readonly number[]): { linked: boolean; notes: string[] } {
    const notes = notificationIds.filter((id) => !integrationOf.has(id)).map((id) => `not alerted: notification ${id}${names.has(id) ? ` "${names.get(id)}"` : ''} was not imported`);
    const ids = [...new Set(notificationIds.filter((id) => integrationOf.has(id)))].sort((a, b) => a - b);
    const target = ids.length === 0 ? undefined : kind === 'monitor' ? tx.monitors.get(uuid) : tx.healthchecks.get(uuid);
    if (!target) return { linked: false, notes };
    const linkedTo = tx.kumaImports.uuidOf('monitor-policy', kumaId);
    if (linkedTo) {
      // Linked by an earlier run: reported, never replaced (not even when its notifications changed in Kuma).
      const earlier = tx.escalationPolicies.get(linkedTo);
      if (earlier) reportUnchanged(earlier);
      return { linked: false, notes };
    }
    const policy = policyFor(ids);
    if (!policy) return { linked: false, notes: [...notes, 'not alerted: its escalation policy was deleted in Pharos'] };
    if (target.escalationPolicyUuid === policy.uuid) {
      tx.kumaImports.remember('monitor-policy', kumaId, policy.uuid, stamp.now);
      return { linked: false, notes };
    }
    if (target.escalationPolicyUuid !== null) return { linked: false, notes: [...notes, `keeps the escalation policy ${target.escalationPolicyUuid} set in Pharos (not "${policy.name}")`] };
    const diff = { escalation_policy: { before: null, after: policy.uuid } };
    if (kind === 'monitor') {
      tx.monitors.update(uuid, { ...(target as NonNullable<ReturnType<Store['monitors']['get']>>), escalationPolicyUuid: policy.uuid }, stamp.now);
      recordAudit(tx, stamp, { action: 'update', resourceType: 'monitor', resourceUuid: uuid, resourceName: target.name, diff });
    } else {
      const h = target as NonNullable<ReturnType<Store['healthchecks']['get']>>;
      tx.healthchecks.update(h.id, { ...h, escalationPolicyUuid: policy.uuid }, stamp.now);
      recordAudit(tx, stamp, { action: 'update', resourceType: 'healthcheck', resourceUuid: h.publicUuid, resourceName: h.name, diff });
    }
    tx.kumaImports.remember('monitor-policy', kumaId, policy.uuid, stamp.now);
    return { linked: true, notes: [...notes, `escalation policy "${policy.name}"`] };
  }

  /** Kuma notification names by id, for the notes of monitors whose notifications were not imported. */
  const names = new Map<number, string>();
  return {
    /** Creates or finds the integrations (call first). */
    integrations(prepared: readonly PreparedNotification[]): void {
      for (const p of prepared) names.set(p.n.id, p.n.name);
      integrations(prepared);
    },
    link,
  };
}
