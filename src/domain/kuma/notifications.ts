import { ChannelConfig } from '../channels/index.ts';
import type { KumaNotification } from './types.ts';

/**
 * Kuma notifications → Pharos channel entries for `config.kuma.yaml`, pure. Secret fields are
 * written as `${KUMA_<id>_<FIELD>}` placeholders (filled from the environment when the config is
 * loaded) unless secrets are asked for.
 */

/** What became of one notification. */
export type NotificationMapping = { kind: 'channel'; entry: Record<string, unknown>; notes: string[] } | { kind: 'skipped'; reason: string };

type Field = { from: string; secret?: boolean; as?: (v: string) => unknown };
type Rule = { type: string; fields: Record<string, Field>; extra?: (c: Record<string, unknown>, notes: string[]) => Record<string, unknown> | string };

const int = (v: string) => Number.parseInt(v, 10);

/** Kuma provider name (`config.type`) → Pharos kind and field mapping. */
const RULES: Record<string, Rule> = {
  discord: { type: 'discord', fields: { url: { from: 'discordWebhookUrl', secret: true }, username: { from: 'discordUsername' } } },
  telegram: {
    type: 'telegram',
    fields: { bot_token: { from: 'telegramBotToken', secret: true }, chat_id: { from: 'telegramChatID' }, topic_id: { from: 'telegramMessageThreadID', as: int }, api_url: { from: 'telegramServerUrl' } },
  },
  ntfy: {
    type: 'ntfy',
    fields: { server: { from: 'ntfyserverurl' }, topic: { from: 'ntfytopic' }, priority: { from: 'ntfyPriority', as: int } },
    extra: (c, notes) => {
      if (c.ntfyAuthenticationMethod === 'usernamePassword') notes.push('ntfy user/password login is not supported: give the channel an access token');
      return c.ntfyAuthenticationMethod === 'accessToken' && c.ntfyaccesstoken ? { token: { secret: String(c.ntfyaccesstoken), field: 'TOKEN' } } : {};
    },
  },
  gotify: { type: 'gotify', fields: { server: { from: 'gotifyserverurl' }, token: { from: 'gotifyapplicationToken', secret: true }, priority: { from: 'gotifyPriority', as: int } } },
  pushover: {
    type: 'pushover',
    fields: {
      user_key: { from: 'pushoveruserkey', secret: true },
      app_token: { from: 'pushoverapptoken', secret: true },
      priority: { from: 'pushoverpriority', as: (v) => Math.min(1, int(v)) },
      device: { from: 'pushoverdevice' },
      sound: { from: 'pushoversounds' },
    },
  },
  matrix: { type: 'matrix', fields: { homeserver: { from: 'homeserverUrl' }, room_id: { from: 'internalRoomId' }, access_token: { from: 'accessToken', secret: true } } },
  mattermost: { type: 'mattermost', fields: { url: { from: 'mattermostWebhookUrl', secret: true }, channel: { from: 'mattermostchannel' }, username: { from: 'mattermostusername' } } },
  GoogleChat: { type: 'googlechat', fields: { url: { from: 'googleChatWebhookURL', secret: true } } },
  PagerDuty: {
    type: 'pagerduty',
    fields: { routing_key: { from: 'pagerdutyIntegrationKey', secret: true }, api_url: { from: 'pagerdutyIntegrationUrl', as: (v) => v.replace(/\/v2\/enqueue\/?$/, '') } },
  },
  Opsgenie: { type: 'opsgenie', fields: { api_key: { from: 'opsgenieApiKey', secret: true }, api_url: { from: 'opsgenieRegion', as: (v) => (v === 'eu' ? 'https://api.eu.opsgenie.com' : 'https://api.opsgenie.com') } } },
  twilio: {
    type: 'twilio',
    fields: { account_sid: { from: 'twilioAccountSID' }, auth_token: { from: 'twilioAuthToken', secret: true }, from: { from: 'twilioFromNumber' }, to: { from: 'twilioToNumber', as: (v) => [v] } },
  },
  slack: { type: 'slack', fields: { url: { from: 'slackwebhookURL', secret: true } } },
  teams: { type: 'teams', fields: { url: { from: 'webhookUrl', secret: true } } },
  webhook: {
    type: 'webhook',
    fields: { url: { from: 'webhookURL', secret: true } },
    extra: (c, notes) => {
      if (c.webhookContentType === 'custom' || c.webhookCustomBody) notes.push("Kuma's custom body template is not imported (Pharos templates are Mustache)");
      if (c.webhookContentType === 'form-data') notes.push('form-data bodies become JSON');
      return {};
    },
  },
  smtp: {
    type: 'email',
    fields: {},
    extra: (c) => {
      const to = String(c.smtpTo ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (!c.smtpHost || to.length === 0) return 'no SMTP host or recipient';
      return {
        from: String(c.smtpFrom ?? `pharos@${String(c.smtpHost)}`),
        to,
        smtp: {
          host: String(c.smtpHost),
          port: Number(c.smtpPort ?? 587),
          secure: c.smtpSecure === true || c.smtpSecure === 'secure',
          ...(c.smtpUsername ? { user: String(c.smtpUsername) } : {}),
          ...(c.smtpPassword ? { password: { secret: String(c.smtpPassword), field: 'SMTP_PASSWORD' } } : {}),
        },
      };
    },
  },
  apprise: {
    type: 'apprise',
    fields: {},
    extra: (c) => (typeof c.appriseURL === 'string' && c.appriseURL ? { apprise: { secret: c.appriseURL, field: 'APPRISE_URL' } } : 'no Apprise URL'),
  },
};

/** The Kuma provider names that map to a Pharos channel. */
export const KUMA_NOTIFICATION_TYPES = Object.keys(RULES);

/** `kuma-<id>-<name as letters/digits/dashes>`, within the channel-name rule (64 characters). */
export function kumaChannelName(n: KumaNotification): string {
  const slug = n.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return `kuma-${n.id}${slug ? `-${slug}` : ''}`.slice(0, 64).replace(/[-.]+$/, '');
}

/** A secret value marker inside an entry under construction, replaced by {@link finish}. */
type Secret = { secret: string; field: string };
const isSecret = (v: unknown): v is Secret => typeof v === 'object' && v !== null && 'secret' in v && 'field' in v;

/** Replaces secret markers by their value or by `${KUMA_<id>_<FIELD>}`. */
function finish(v: unknown, id: number, withSecrets: boolean): unknown {
  if (isSecret(v)) return withSecrets ? v.secret : `\${KUMA_${id}_${v.field}}`;
  if (Array.isArray(v)) return v.map((x) => finish(x, id, withSecrets));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, finish(x, id, withSecrets)]));
  return v;
}

/**
 * Maps one notification. The entry is validated with its real values against the channel schema
 * (a failure skips it with the schema's message); the returned entry holds real secrets only with
 * `withSecrets`.
 */
export function mapNotification(n: KumaNotification, withSecrets: boolean): NotificationMapping {
  const kumaType = typeof n.config.type === 'string' ? n.config.type : '';
  const rule = RULES[kumaType];
  if (!rule) return { kind: 'skipped', reason: `notification type "${kumaType || 'unknown'}" has no Pharos channel` };
  const notes: string[] = [];
  const entry: Record<string, unknown> = { name: kumaChannelName(n), ...(rule.type === 'apprise' ? {} : { type: rule.type }) };
  for (const [key, f] of Object.entries(rule.fields)) {
    const raw = n.config[f.from];
    if (raw === undefined || raw === null || raw === '') continue;
    const value = f.as ? f.as(String(raw)) : String(raw);
    entry[key] = f.secret ? { secret: value, field: key.toUpperCase() } : value;
  }
  const extra = rule.extra?.(n.config, notes) ?? {};
  if (typeof extra === 'string') return { kind: 'skipped', reason: extra };
  Object.assign(entry, extra);
  const parsed = ChannelConfig.safeParse(finish(entry, n.id, true));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { kind: 'skipped', reason: `${issue.path.join('.') || 'entry'}: ${issue.message}` };
  }
  if (!n.active) notes.push('disabled in Kuma');
  return { kind: 'channel', entry: finish(entry, n.id, withSecrets) as Record<string, unknown>, notes };
}

/** An escalation policy for one set of channels: `ep_kuma_<notification ids>`, step 1 at once. */
export function kumaPolicy(ids: number[], channelNames: string[]): { uuid: string; name: string; steps: { after_minutes: number; channels: string[] }[] } {
  return { uuid: `ep_kuma_${ids.join('_')}`, name: `Kuma notifications ${ids.join(', ')}`, steps: [{ after_minutes: 0, channels: channelNames }] };
}
