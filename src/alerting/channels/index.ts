import type { ChannelConfig, ChannelType } from '../../config/schema.ts';
import { createEmailChannel } from './email.ts';
import { createSlackChannel } from './slack.ts';
import { createTeamsChannel } from './teams.ts';
import type { Channel } from './types.ts';
import { createWebhookChannel } from './webhook.ts';

export { ChannelError } from './types.ts';
export type { AlertKind, AlertMessage, AlertOutage, Channel } from './types.ts';
export type { WebhookConfig, WebhookPayload, WebhookEvent } from './webhook.ts';
export type { SlackConfig, SlackPayload } from './slack.ts';
export type { TeamsConfig, TeamsPayload } from './teams.ts';
export type { EmailConfig, EmailContent } from './email.ts';

/**
 * The channel registry (house rule 1): one factory per `type` of a channel in config.yaml. Adding a
 * kind means a schema in `config/schema.ts`, a file here, and one line below; the `satisfies`
 * clause fails to compile until every kind has a factory taking its own config.
 */
export const CHANNEL_FACTORIES = {
  webhook: createWebhookChannel,
  slack: createSlackChannel,
  teams: createTeamsChannel,
  email: createEmailChannel,
} as const satisfies { [K in ChannelType]: (config: Extract<ChannelConfig, { type: K }>) => Channel };

/** Creates the channel for one config entry with the factory of its `type`. */
export function createChannel(config: ChannelConfig): Channel {
  // TypeScript cannot correlate `config.type` with the factory's parameter; `satisfies` above
  // guarantees each factory takes exactly the config of its own type.
  const factory = CHANNEL_FACTORIES[config.type] as (config: ChannelConfig) => Channel;
  return factory(config);
}

/**
 * Creates every configured channel, keyed by name (what escalation policy steps reference).
 * Nothing connects yet: HTTP pools and SMTP connections open on the first send.
 * @throws Error when two channels share a name (config validation already refuses that)
 */
export function createChannels(configs: readonly ChannelConfig[]): Map<string, Channel> {
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name)) throw new Error(`channel name "${c.name}" is used twice`);
    seen.add(c.name);
  }
  return new Map(configs.map((c) => [c.name, createChannel(c)] as const));
}
