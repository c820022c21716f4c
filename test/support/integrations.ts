import type { ChannelType } from '../../src/domain/channels/index.ts';
import { newId, ID_PREFIX } from '../../src/domain/ids.ts';
import { sealSettings, type Integration, type IntegrationSettings } from '../../src/domain/integration.ts';
import type { EscalationPolicy, PolicyStep } from '../../src/domain/escalation-policy.ts';
import type { SecretBox } from '../../src/lib/secret-box.ts';
import type { Store } from '../../src/store/index.ts';

/**
 * Integrations and policies written straight through a Pharos's store (what the API and provisioning
 * do, without them): settings sealed with the running Pharos's key, times from `now` (epoch ms).
 */
export function storeWriter(target: { store: Store; secrets: SecretBox }) {
  const { store, secrets: box } = target;
  const seal = (kind: ChannelType, settings: IntegrationSettings) => sealSettings(kind, settings, (s) => box.seal(s));
  return {
    box,
    /** Stores a new integration (plaintext settings, sealed here). */
    async integration(input: { name: string; kind: ChannelType; settings: IntegrationSettings; enabled?: boolean }, now: number): Promise<Integration> {
      const sealed = seal(input.kind, input.settings);
      return store.async.integrations.insert(newId(ID_PREFIX.integration), { name: input.name, kind: input.kind, enabled: input.enabled ?? true, provisioned: false, ...sealed }, now);
    },
    /** Replaces an integration's settings (plaintext, sealed here). */
    async settings(uuid: string, settings: IntegrationSettings, now: number): Promise<Integration> {
      const cur = (await store.async.integrations.get(uuid))!;
      return (await store.async.integrations.update(uuid, { name: cur.name, kind: cur.kind, enabled: cur.enabled, provisioned: cur.provisioned, ...seal(cur.kind, settings) }, now))!;
    },
    /** A policy whose steps alert integrations: `[{delayMinutes, integrations: [uuid…]}]`. */
    async policy(input: { name: string; steps: Array<{ delayMinutes: number; integrations: string[] }>; repeatCount?: number; repeatEveryMinutes?: number | null }, now: number): Promise<EscalationPolicy> {
      const steps: PolicyStep[] = input.steps.map((s) => ({ delayMinutes: s.delayMinutes, targets: s.integrations.map((uuid) => ({ type: 'integration' as const, uuid })) }));
      return store.async.escalationPolicies.insert(
        newId(ID_PREFIX.escalationPolicy),
        { name: input.name, team: null, steps, repeatCount: input.repeatCount ?? 0, repeatEveryMinutes: input.repeatEveryMinutes ?? null, provisioned: false },
        now,
      );
    },
  };
}
