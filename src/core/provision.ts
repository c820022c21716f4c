import type { Config } from '../config/schema.ts';
import type { AuditActor } from '../domain/audit.ts';
import type { ChannelType } from '../domain/channels/index.ts';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { EscalationPoliciesService } from './escalation-policies.ts';
import type { IntegrationsService } from './integrations.ts';

/**
 * Provisioning from config.yaml (issue 32 point 4): `channels:` become integrations (matched by
 * name) and `escalation_policies:` become policies (their `uuid` kept; step channel names become
 * integration uuids), all marked provisioned (read-only for the API and the console). One removed
 * from config.yaml is deleted when nothing uses it, else it stays and loses `provisioned` (a warning
 * says so). Run at start and on SIGHUP; every change goes through the services, so it is audited
 * with the actor `system`/`config.yaml`. A GitOps user keeps everything in YAML this way.
 */

/** The audit actor of provisioning. */
export const CONFIG_ACTOR: AuditActor = { type: 'system', id: 'config.yaml', name: 'config.yaml' };

/** What one run changed, for its log line (and tests). */
export interface ProvisionReport {
  integrations: { created: number; updated: number; deleted: number; kept: number };
  policies: { created: number; updated: number; deleted: number; kept: number };
  /** One line per item that could not be provisioned (also logged as errors). */
  errors: string[];
}

/**
 * Brings the stored integrations and policies in line with `config`. Never throws: an item that
 * cannot be written is logged (error) and reported; the others are still provisioned.
 */
export async function provisionFromConfig(
  deps: { integrations: IntegrationsService; escalationPolicies: EscalationPoliciesService; logger: Logger },
  config: Pick<Config, 'channels' | 'escalation_policies'>,
): Promise<ProvisionReport> {
  const { integrations, escalationPolicies: policies, logger } = deps;
  const report: ProvisionReport = { integrations: { created: 0, updated: 0, deleted: 0, kept: 0 }, policies: { created: 0, updated: 0, deleted: 0, kept: 0 }, errors: [] };
  const fail = (what: string, e: unknown) => {
    const line = `config.yaml: ${what}: ${(e as Error).message}`;
    report.errors.push(line);
    logger.error(`provisioning ${line}`);
  };

  // 1. Integrations declared in config.yaml, by name.
  const byName = new Map((await integrations.list()).map((i) => [i.name, i]));
  const declared = new Set<string>();
  for (const channel of config.channels) {
    const { name, type, ...settings } = channel as { name: string; type: ChannelType } & Record<string, unknown>;
    declared.add(name);
    try {
      let existing = byName.get(name);
      if (!existing) {
        try {
          byName.set(name, await integrations.create({ name, kind: type, settings }, CONFIG_ACTOR, { provisioning: true }));
          report.integrations.created++;
          continue;
        } catch (e) {
          // Another instance of the cluster provisioned it meanwhile: update what it stored.
          if (!(e instanceof AppError && e.code === 'integrations.name_taken')) throw e;
          existing = await integrations.getByName(name);
          if (!existing) throw e;
        }
      }
      if (existing.kind !== type) {
        throw new Error(`channel "${name}" is a ${existing.kind} integration and cannot become ${type}: rename it, or delete the integration first`);
      } else {
        const updated = await integrations.update(existing.uuid, { name, settings }, CONFIG_ACTOR, { provisioning: true });
        if (updated.updatedAt !== existing.updatedAt) report.integrations.updated++;
        byName.set(name, updated);
      }
    } catch (e) {
      fail(`channel "${name}"`, e);
    }
  }

  // 2. Policies declared in config.yaml, by uuid.
  const stored = new Map((await policies.list()).map((p) => [p.uuid, p]));
  const declaredPolicies = new Set<string>();
  for (const p of config.escalation_policies) {
    declaredPolicies.add(p.uuid);
    try {
      const steps = p.steps.map((s) => ({
        delayMinutes: s.after_minutes,
        targets: s.channels.map((name) => {
          const i = byName.get(name);
          if (!i) throw new Error(`step channel "${name}" could not be provisioned`);
          return { type: 'integration' as const, uuid: i.uuid };
        }),
      }));
      // repeat_every_minutes repeats until acknowledged or resolved: repeat_count 0 (no cap).
      const fields = { name: p.name, steps, repeatCount: 0, repeatEveryMinutes: p.repeat_every_minutes ?? null };
      let existing = stored.get(p.uuid);
      if (!existing) {
        try {
          await policies.create({ ...fields, uuid: p.uuid }, CONFIG_ACTOR, { provisioning: true });
          report.policies.created++;
          continue;
        } catch (e) {
          // Another instance of the cluster provisioned it meanwhile: update what it stored.
          if (!(e instanceof AppError && e.code === 'escalation_policies.uuid_taken')) throw e;
          existing = await policies.get(p.uuid);
        }
      }
      {
        const updated = await policies.update(p.uuid, fields, CONFIG_ACTOR, { provisioning: true });
        if (updated.updatedAt !== existing.updatedAt) report.policies.updated++;
      }
    } catch (e) {
      fail(`escalation policy "${p.name}" (${p.uuid})`, e);
    }
  }

  // 3. Provisioned policies no longer declared: deleted, or kept (unprovisioned) while something uses them.
  for (const p of stored.values()) {
    if (!p.provisioned || declaredPolicies.has(p.uuid)) continue;
    await removed(p.name, 'escalation policy', report.policies, () => policies.delete(p.uuid, CONFIG_ACTOR, { provisioning: true }), () => policies.unprovision(p.uuid, CONFIG_ACTOR), 'escalation_policies.in_use', logger, fail);
  }
  // 4. Then integrations (a policy removed above no longer holds them).
  for (const i of byName.values()) {
    if (!i.provisioned || declared.has(i.name)) continue;
    await removed(i.name, 'integration', report.integrations, () => integrations.delete(i.uuid, CONFIG_ACTOR, { provisioning: true }), () => integrations.unprovision(i.uuid, CONFIG_ACTOR), 'integrations.in_use', logger, fail);
  }

  const counts = (c: ProvisionReport['integrations']) => `${c.created} created, ${c.updated} updated, ${c.deleted} deleted${c.kept ? `, ${c.kept} kept (in use)` : ''}`;
  // One line when anything was declared or changed (a start without channels or policies says nothing).
  const touched = (c: ProvisionReport['integrations']) => c.created + c.updated + c.deleted + c.kept;
  if (config.channels.length + config.escalation_policies.length + touched(report.integrations) + touched(report.policies) + report.errors.length > 0) {
    logger.info(`provisioned from config.yaml: integrations ${counts(report.integrations)}; escalation policies ${counts(report.policies)}${report.errors.length ? `; ${report.errors.length} failed` : ''}`, {
      integrations: config.channels.length,
      escalation_policies: config.escalation_policies.length,
    });
  }
  return report;
}

/** Deletes one removed from config.yaml, or keeps it unprovisioned (warning) when it is in use. */
async function removed(
  name: string,
  what: string,
  counts: ProvisionReport['integrations'],
  del: () => Promise<unknown>,
  unprovision: () => Promise<unknown>,
  inUse: string,
  logger: Logger,
  fail: (what: string, e: unknown) => void,
): Promise<void> {
  try {
    await del();
    counts.deleted++;
  } catch (e) {
    if (!(e instanceof AppError && e.code === inUse)) return fail(`removed ${what} "${name}"`, e);
    try {
      await unprovision();
      counts.kept++;
      logger.warn(`${what} "${name}" was removed from config.yaml but is in use, so it stays (now editable in the console and the API): ${e.message}`);
    } catch (e2) {
      fail(`removed ${what} "${name}"`, e2);
    }
  }
}
