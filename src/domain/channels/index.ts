import { z } from 'zod';
import * as appriseCli from './apprise-cli.ts';
import * as bark from './bark.ts';
import * as discord from './discord.ts';
import * as email from './email.ts';
import * as gotify from './gotify.ts';
import * as homeassistant from './homeassistant.ts';
import * as googlechat from './googlechat.ts';
import * as matrix from './matrix.ts';
import * as mattermost from './mattermost.ts';
import * as nextcloudtalk from './nextcloudtalk.ts';
import * as ntfy from './ntfy.ts';
import * as opsgenie from './opsgenie.ts';
import * as pagerduty from './pagerduty.ts';
import * as pushbullet from './pushbullet.ts';
import * as pushover from './pushover.ts';
import * as rocketchat from './rocketchat.ts';
import * as signal from './signal.ts';
import * as slack from './slack.ts';
import * as teams from './teams.ts';
import * as telegram from './telegram.ts';
import * as twilio from './twilio.ts';
import * as webhook from './webhook.ts';
import { expandApprise } from './apprise.ts';

/**
 * The registry of channel kinds (house rule 1), pure part: each kind's config schema and whether
 * it follows an outage's lifecycle (acknowledgements). It sits in `domain/` so that `config/` (read
 * by every layer) can validate `channels:` from it; the matching senders are the registry in
 * `alerting/channels/index.ts`, whose `satisfies` clause refuses to compile without one per kind
 * listed here. Adding a kind: `domain/channels/<type>.ts`, one line here, a folder
 * `alerting/channels/<type>/` and one line there. A field's help text is its schema's
 * `.describe('…')` (the console's integration form shows it under the field's label).
 */
export const CHANNEL_KINDS = {
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
  apprise: appriseCli,
} as const satisfies Record<string, { schema: unknown; lifecycle: boolean; secretFields: readonly string[] }>;

/** A channel kind (`type:` in config.yaml). */
export type ChannelType = keyof typeof CHANNEL_KINDS;

/** Every channel kind, in registry order. */
export const CHANNEL_TYPES = Object.keys(CHANNEL_KINDS) as ChannelType[];

type Schemas = { [K in ChannelType]: (typeof CHANNEL_KINDS)[K]['schema'] };
const schemas = Object.values(CHANNEL_KINDS).map((k) => k.schema) as unknown as [Schemas[ChannelType], ...Schemas[ChannelType][]];

/** Any typed channel entry, discriminated by `type`. */
export const TypedChannelConfig = z.discriminatedUnion('type', schemas);

/**
 * One `channels:` entry: a typed entry, or the short form `{name, apprise: "<scheme>://…"}` (plus
 * optional `timeout_seconds`), expanded by {@link expandApprise} before validation.
 */
export const ChannelConfig = z.preprocess((raw, ctx) => {
  if (!raw || typeof raw !== 'object' || !('apprise' in raw)) return raw;
  const { apprise, ...rest } = raw as { apprise: unknown };
  if (typeof apprise !== 'string') {
    ctx.addIssue({ code: 'custom', path: ['apprise'], message: 'must be a string such as discord://id/token' });
    return z.NEVER;
  }
  const expanded = expandApprise(apprise);
  if ('error' in expanded) {
    ctx.addIssue({ code: 'custom', path: ['apprise'], message: expanded.error });
    return z.NEVER;
  }
  return { ...expanded.config, ...rest };
}, TypedChannelConfig);

/** A validated channel entry (defaults applied). */
export type ChannelConfig = z.infer<typeof TypedChannelConfig>;

/** The validated config of one kind. */
export type ChannelConfigOf<K extends ChannelType> = Extract<ChannelConfig, { type: K }>;

/** Kinds that receive `acknowledge` messages (PagerDuty, Opsgenie): the ones tracking an alert's state. */
export function followsAcknowledgements(type: ChannelType): boolean {
  return CHANNEL_KINDS[type].lifecycle;
}

/**
 * The settings paths of `type` that are secrets (each kind's `secretFields`): stored sealed, shown and
 * audited as `***` (domain/integration.ts). Dotted for nested fields, `*` for every value of a record.
 */
export function secretFieldsOf(type: ChannelType): readonly string[] {
  return CHANNEL_KINDS[type].secretFields;
}
