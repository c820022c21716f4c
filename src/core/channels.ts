import type { ChannelType } from '../domain/channels/index.ts';
import { openSettings } from '../domain/integration.ts';
import { AppError } from '../lib/errors.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { Store } from '../store/index.ts';

/** One answer of a provider to a test delivery. */
export interface ChannelTestAnswer {
  /** What was sent: the sample alert, then (PagerDuty, Opsgenie) its resolve so no incident stays open. */
  kind: 'alert' | 'recovery';
  /** HTTP status (SMTP reply code for email), or null when there was no answer (network error). */
  status: number | null;
  /** The start of the provider's answer (≤2,000 characters) or the error. */
  body: string;
}

/** The outcome of `pharos alert test` / the console's "send test alert". */
export interface ChannelTestResult {
  channel: string;
  type: string;
  ok: boolean;
  answers: ChannelTestAnswer[];
  /** The error message when a delivery failed (never contains a secret), else null. */
  error: string | null;
}

/**
 * What the tester sends through: an integration's name and kind, and its settings in plaintext
 * (secrets opened with the SecretBox by the caller; never logged, never in the result).
 */
export interface ChannelTestTarget {
  name: string;
  kind: ChannelType;
  settings: Record<string, unknown>;
}

/**
 * Sends a sample alert through a throwaway sender built from `target` (implemented by alerting:
 * src/alerting/test-alert.ts; wired by main). Delivery errors are in the result, not thrown.
 * @throws Error when `target.settings` is not a valid config of its kind
 */
export type ChannelTester = (target: ChannelTestTarget) => Promise<ChannelTestResult>;

/**
 * Integrations by name as the console's settings page and `pharos alert test NAME` see them: names
 * and kinds (never their secrets), and a test delivery through the stored settings. The test bypasses
 * the outbox (nothing is stored, nothing is retried): it is a person asking "does this reach us?" and
 * wanting the provider's answer now. (`core.integrations.test(uuid)` is the same by uuid, and records it.)
 */
export function channelsService(deps: { store: Store; secrets: SecretBox | undefined; tester?: ChannelTester | undefined }) {
  const { store } = deps;
  return {
    /** Name and type of every integration, by name. */
    list: async (): Promise<{ name: string; type: string }[]> => (await store.async.integrations.list()).map((i) => ({ name: i.name, type: i.kind })),
    /**
     * Delivers a sample alert through the integration named `name` (its stored settings, opened now)
     * and reports the provider's answer.
     * @throws (rejects) AppError 404 `channels.not_found` for an unknown name; 503 `channels.unavailable`
     *   when no sender or no secret key is wired (a core without alerting); `secrets.*` from the box
     */
    async test(name: string): Promise<ChannelTestResult> {
      const found = await store.async.integrations.getByName(name);
      if (!found) {
        const known = (await store.async.integrations.list()).map((i) => i.name).join(', ') || 'none configured';
        throw new AppError(404, 'channels.not_found', `No channel named "${name}" (channels: ${known})`);
      }
      if (!deps.tester || !deps.secrets) throw new AppError(503, 'channels.unavailable', 'Channel tests need the alerting part of Pharos, which is not running here');
      const settings = openSettings(found.settings, (await store.async.integrations.sealedSecrets(found.uuid)) ?? [], (sealed) => deps.secrets!.open(sealed));
      return deps.tester({ name: found.name, kind: found.kind, settings });
    },
  };
}

/** The channels service's interface. */
export type ChannelsService = ReturnType<typeof channelsService>;
