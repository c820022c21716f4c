import type { ChannelConfig, ChannelType } from '../../domain/channels/index.ts';
import { apprise } from './apprise/index.ts';
import { bark } from './bark/index.ts';
import { discord } from './discord/index.ts';
import { email } from './email/index.ts';
import { googlechat } from './googlechat/index.ts';
import { gotify } from './gotify/index.ts';
import { homeassistant } from './homeassistant/index.ts';
import { matrix } from './matrix/index.ts';
import { mattermost } from './mattermost/index.ts';
import { nextcloudtalk } from './nextcloudtalk/index.ts';
import { ntfy } from './ntfy/index.ts';
import { opsgenie } from './opsgenie/index.ts';
import { pagerduty } from './pagerduty/index.ts';
import { pushbullet } from './pushbullet/index.ts';
import { pushover } from './pushover/index.ts';
import { rocketchat } from './rocketchat/index.ts';
import { signal } from './signal/index.ts';
import { slack } from './slack/index.ts';
import { teams } from './teams/index.ts';
import { telegram } from './telegram/index.ts';
import { twilio } from './twilio/index.ts';
import type { Channel, ChannelPlugin } from './types.ts';
import { webhook } from './webhook/index.ts';

export { ChannelError } from './types.ts';
export type { AlertKind, AlertMessage, AlertOutage, Channel, ChannelPlugin, Delivery, ProviderAnswer } from './types.ts';
export type { WebhookConfig, WebhookPayload, WebhookEvent } from './webhook/index.ts';
export type { SlackConfig, SlackPayload } from './slack/index.ts';
export type { TeamsConfig, TeamsPayload } from './teams/index.ts';
export type { EmailConfig, EmailContent } from './email/index.ts';

/**
 * The channel registry (house rule 1): one plugin per `type` of a channel in config.yaml. Adding a
 * kind means its schema in `domain/channels/` (one line in that registry), a folder here, and one
 * line below; the `satisfies` clause fails to compile until every kind of the schema registry has
 * a plugin taking its own config. The contract suite runs over this object.
 */
export const CHANNELS = {
  webhook,
  slack,
  teams,
  email,
  discord,
  telegram,
  ntfy,
  gotify,
  pushover,
  matrix,
  mattermost,
  googlechat,
  pagerduty,
  opsgenie,
  twilio,
  homeassistant,
  signal,
  pushbullet,
  rocketchat,
  nextcloudtalk,
  bark,
  apprise,
} as const satisfies { [K in ChannelType]: ChannelPlugin<K> };

/** Creates the channel for one config entry with the plugin of its `type`. */
export function createChannel(config: ChannelConfig): Channel {
  // TypeScript cannot correlate `config.type` with the plugin's parameter; `satisfies` above
  // guarantees each plugin takes exactly the config of its own type.
  const plugin = CHANNELS[config.type] as unknown as ChannelPlugin<ChannelType>;
  return plugin.create(config as never);
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
