import type { Config } from '../config/schema.ts';
import { AppError } from '../lib/errors.ts';

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

/** Sends a sample alert through one configured channel (implemented by alerting, wired by main). */
export type ChannelTester = (name: string) => Promise<ChannelTestResult>;

/**
 * The configured channels as the console and CLI see them: names and kinds (never their secrets),
 * and a test delivery. The test bypasses the outbox (nothing is stored, nothing is retried): it is
 * a person asking "does this reach us?" and wanting the provider's answer now.
 */
export function channelsService(deps: { config: Pick<Config, 'channels'>; tester?: ChannelTester | undefined }) {
  const { config } = deps;
  return {
    /** Name and type of every configured channel, in config order. */
    list: (): { name: string; type: string }[] => config.channels.map((c) => ({ name: c.name, type: c.type })),
    /**
     * Delivers a sample alert through channel `name` and reports the provider's answer.
     * @throws AppError 404 `channels.not_found` for an unknown name; 503 `channels.unavailable`
     *   when no sender is wired (a core without alerting)
     */
    async test(name: string): Promise<ChannelTestResult> {
      if (!config.channels.some((c) => c.name === name)) {
        const known = config.channels.map((c) => c.name).join(', ') || 'none configured';
        throw new AppError(404, 'channels.not_found', `No channel named "${name}" (channels: ${known})`);
      }
      if (!deps.tester) throw new AppError(503, 'channels.unavailable', 'Channel tests need the alerting part of Pharos, which is not running here');
      return deps.tester(name);
    },
  };
}

/** The channels service's interface. */
export type ChannelsService = ReturnType<typeof channelsService>;
