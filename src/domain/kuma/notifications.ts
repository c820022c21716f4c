import { CHANNEL_KINDS, type ChannelType } from '../channels/index.ts';
import { expandApprise } from '../channels/apprise.ts';
import type { IntegrationSettings } from '../integration.ts';
import type { KumaNotification } from './types.ts';

/**
 * Kuma notifications → Pharos integrations (issue 32 point 6), pure. Field names are Kuma's, read
 * from its providers (louislam/uptime-kuma server/notification-providers/<provider>.js: the
 * `notification.<field>` each one sends with; `type` is the provider's `name`). The settings come
 * out in plaintext, validated by the kind's schema with its defaults applied; the importer seals
 * the secrets (domain/integration.ts `sealSettings`) before anything is stored.
 */

/** What one notification becomes: an integration (with what was not carried, as notes), or nothing and why. */
export type NotificationMapping =
  | { kind: 'integration'; integration: { kind: ChannelType; enabled: boolean; settings: IntegrationSettings }; notes: string[] }
  | { kind: 'skipped'; reason: string };

type Field = { from: string; as?: (v: string) => unknown };
/** `extra` returns more fields, or a string: the reason the notification cannot be imported. */
type Rule = { kind: ChannelType; fields: Record<string, Field>; extra?: (c: Record<string, unknown>, notes: string[]) => Record<string, unknown> | string };

const int = (v: string) => Number.parseInt(v, 10);
const trimSlash = (v: string) => v.trim().replace(/\/+$/, '');
const list = (v: unknown) =>
  String(v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Kuma's webhook headers (`webhookAdditionalHeaders`, JSON text of an object) as string values. */
function webhookHeaders(raw: unknown, notes: string[]): Record<string, string> {
  if (raw === undefined || raw === null || raw === '') return {};
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      notes.push('not carried: additional headers (not valid JSON in Kuma)');
      return {};
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    notes.push('not carried: additional headers (not a JSON object in Kuma)');
    return {};
  }
  return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** Kuma provider name (`config.type`) → Pharos kind and field mapping. */
const RULES: Record<string, Rule> = {
  discord: { kind: 'discord', fields: { url: { from: 'discordWebhookUrl' }, username: { from: 'discordUsername' } } },
  telegram: {
    kind: 'telegram',
    fields: { bot_token: { from: 'telegramBotToken' }, chat_id: { from: 'telegramChatID' }, topic_id: { from: 'telegramMessageThreadID', as: int }, api_url: { from: 'telegramServerUrl' } },
  },
  ntfy: {
    kind: 'ntfy',
    fields: { server: { from: 'ntfyserverurl' }, topic: { from: 'ntfytopic' }, priority: { from: 'ntfyPriority', as: int } },
    extra: (c, notes) => {
      if (c.ntfyAuthenticationMethod === 'usernamePassword') notes.push('not carried: ntfy user/password login (Pharos uses an access token: set token)');
      return c.ntfyAuthenticationMethod === 'accessToken' && c.ntfyaccesstoken ? { token: String(c.ntfyaccesstoken) } : {};
    },
  },
  gotify: { kind: 'gotify', fields: { server: { from: 'gotifyserverurl' }, token: { from: 'gotifyapplicationToken' }, priority: { from: 'gotifyPriority', as: int } } },
  pushover: {
    kind: 'pushover',
    fields: {
      user_key: { from: 'pushoveruserkey' },
      app_token: { from: 'pushoverapptoken' },
      priority: { from: 'pushoverpriority', as: (v) => Math.min(1, int(v)) },
      device: { from: 'pushoverdevice' },
      sound: { from: 'pushoversounds' },
    },
  },
  matrix: { kind: 'matrix', fields: { homeserver: { from: 'homeserverUrl' }, room_id: { from: 'internalRoomId' }, access_token: { from: 'accessToken' } } },
  mattermost: { kind: 'mattermost', fields: { url: { from: 'mattermostWebhookUrl' }, channel: { from: 'mattermostchannel' }, username: { from: 'mattermostusername' } } },
  GoogleChat: { kind: 'googlechat', fields: { url: { from: 'googleChatWebhookURL' } } },
  PagerDuty: { kind: 'pagerduty', fields: { routing_key: { from: 'pagerdutyIntegrationKey' }, api_url: { from: 'pagerdutyIntegrationUrl', as: (v) => v.replace(/\/v2\/enqueue\/?$/, '') } } },
  Opsgenie: { kind: 'opsgenie', fields: { api_key: { from: 'opsgenieApiKey' }, api_url: { from: 'opsgenieRegion', as: (v) => (v === 'eu' ? 'https://api.eu.opsgenie.com' : 'https://api.opsgenie.com') } } },
  twilio: { kind: 'twilio', fields: { account_sid: { from: 'twilioAccountSID' }, auth_token: { from: 'twilioAuthToken' }, from: { from: 'twilioFromNumber' }, to: { from: 'twilioToNumber', as: (v) => [v] } } },
  slack: { kind: 'slack', fields: { url: { from: 'slackwebhookURL' } } },
  teams: { kind: 'teams', fields: { url: { from: 'webhookUrl' } } },
  webhook: {
    kind: 'webhook',
    fields: { url: { from: 'webhookURL' } },
    extra: (c, notes) => {
      if (c.webhookContentType === 'custom' || c.webhookCustomBody) notes.push("not carried: Kuma's custom body template (Pharos templates are Mustache: set body_template by hand)");
      if (c.webhookContentType === 'form-data') notes.push('not carried: form-data body (Pharos sends JSON)');
      if (typeof c.httpMethod === 'string' && c.httpMethod.toLowerCase() !== 'post') notes.push(`not carried: method ${c.httpMethod.toUpperCase()} (Pharos webhooks POST)`);
      const headers = webhookHeaders(c.webhookAdditionalHeaders, notes);
      return Object.keys(headers).length > 0 ? { headers } : {};
    },
  },
  smtp: {
    kind: 'email',
    fields: {},
    extra: (c) => {
      const to = list(c.smtpTo);
      if (!c.smtpHost || to.length === 0) return 'no SMTP host or recipient';
      return {
        from: String(c.smtpFrom ?? `pharos@${String(c.smtpHost)}`),
        to,
        smtp: {
          host: String(c.smtpHost),
          port: Number(c.smtpPort ?? 587),
          secure: c.smtpSecure === true || c.smtpSecure === 'secure',
          ...(c.smtpUsername ? { user: String(c.smtpUsername) } : {}),
          ...(c.smtpPassword ? { password: String(c.smtpPassword) } : {}),
        },
      };
    },
  },
  // home-assistant.js: POST <homeAssistantUrl>/api/services/notify/<notificationService or "notify">.
  HomeAssistant: {
    kind: 'homeassistant',
    fields: { base_url: { from: 'homeAssistantUrl', as: trimSlash }, token: { from: 'longLivedAccessToken' } },
    extra: (c) => ({ service: typeof c.notificationService === 'string' && c.notificationService.trim() ? c.notificationService.trim() : 'notify' }),
  },
  // signal.js: POST <signalURL> (the full /v2/send URL) with number and comma-separated recipients.
  signal: {
    kind: 'signal',
    fields: { number: { from: 'signalNumber', as: (v) => v.trim() } },
    extra: (c, notes) => {
      const url = typeof c.signalURL === 'string' ? trimSlash(c.signalURL) : '';
      if (!url) return 'no signal-cli REST API URL';
      const base = url.replace(/\/v2\/send$/, '');
      if (base === url) notes.push(`the URL ${url} does not end in /v2/send: taken as the API's address`);
      return { base_url: base, recipients: list(c.signalRecipients).map((r) => r.replace(/\s/g, '')) };
    },
  },
  // pushbullet.js: Access-Token to every device of the account.
  pushbullet: { kind: 'pushbullet', fields: { access_token: { from: 'pushbulletAccessToken' } } },
  // rocket-chat.js: the incoming webhook with channel, username and icon_emoji.
  'rocket.chat': {
    kind: 'rocketchat',
    fields: { url: { from: 'rocketwebhookURL' }, alias: { from: 'rocketusername' }, emoji: { from: 'rocketiconemo' } },
    extra: (c, notes) => {
      if (c.rocketbutton) notes.push('not carried: the button URL (Pharos links each alert to its console page)');
      const channel = typeof c.rocketchannel === 'string' ? c.rocketchannel.trim() : '';
      return channel ? { channel: /^[#@]/.test(channel) ? channel : `#${channel}` } : {};
    },
  },
  // nextcloudtalk.js: the bot API (host, conversationToken, botSecret); Pharos posts as a user.
  nextcloudtalk: {
    kind: 'nextcloudtalk',
    fields: {},
    extra: () => "Kuma's Nextcloud Talk posts as a bot (bot secret); Pharos's nextcloudtalk integration posts as a user with an app password: add it by hand",
  },
  // bark.js: GET <barkEndpoint>/<title>/<body> where barkEndpoint is <server>/<device key>.
  Bark: {
    kind: 'bark',
    fields: { group: { from: 'barkGroup' }, sound: { from: 'barkSound' } },
    extra: (c) => {
      const m = typeof c.barkEndpoint === 'string' ? /^(https?:\/\/.+)\/([^/]+)$/.exec(trimSlash(c.barkEndpoint)) : null;
      return m ? { server: m[1], device_key: decodeURIComponent(m[2]!) } : 'the Bark endpoint is not <server>/<device key>';
    },
  },
  // apprise.js: runs `apprise -b <msg> <appriseURL>`. A URL Pharos reads itself becomes that kind.
  apprise: {
    kind: 'apprise',
    fields: {},
    extra: (c, notes) => {
      const urls = typeof c.appriseURL === 'string' ? c.appriseURL.split(/[\s,]+/).filter(Boolean) : [];
      if (urls.length === 0) return 'no Apprise URL';
      const native = urls.length === 1 ? expandApprise(urls[0]!) : { error: 'several URLs' };
      if ('config' in native) return native.config;
      notes.push('runs the apprise command line tool (apt install apprise)');
      return { urls };
    },
  },
};

/** The Kuma provider names that map to a Pharos integration. */
export const KUMA_NOTIFICATION_TYPES = Object.keys(RULES);

/** Longest policy name the import gives (the API's limit for names). */
const POLICY_NAME_MAX = 100;

/**
 * The name of the policy the import makes for one set of notifications: `Kuma: Slack + Email`,
 * cut to 100 characters (`…` at the end).
 */
export function kumaPolicyName(notificationNames: readonly string[]): string {
  const name = `Kuma: ${notificationNames.join(' + ')}`;
  return name.length <= POLICY_NAME_MAX ? name : `${name.slice(0, POLICY_NAME_MAX - 1)}…`;
}

/**
 * Maps one notification to an integration, validated with its real values against the kind's
 * schema (a failure skips it with the schema's message, naming the field). A notification that is
 * disabled in Kuma becomes a disabled integration. Settings are plaintext: seal them before storing.
 */
export function mapNotification(n: KumaNotification): NotificationMapping {
  const kumaType = typeof n.config.type === 'string' ? n.config.type : '';
  const rule = RULES[kumaType];
  if (!rule) return { kind: 'skipped', reason: `notification type "${kumaType || 'unknown'}" has no Pharos integration kind` };
  const notes: string[] = [];
  const entry: Record<string, unknown> = { type: rule.kind };
  for (const [key, f] of Object.entries(rule.fields)) {
    const raw = n.config[f.from];
    if (raw === undefined || raw === null || raw === '') continue;
    entry[key] = f.as ? f.as(String(raw)) : String(raw);
  }
  const extra = rule.extra?.(n.config, notes) ?? {};
  if (typeof extra === 'string') return { kind: 'skipped', reason: extra };
  Object.assign(entry, extra);
  const kind = entry.type as ChannelType;
  // The schema's name rule is config.yaml's; an integration keeps the Kuma name (checked by the importer).
  const parsed = CHANNEL_KINDS[kind].schema.safeParse({ ...entry, name: 'kuma-import' });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { kind: 'skipped', reason: `${issue.path.join('.') || 'settings'}: ${issue.message}` };
  }
  const { name: _name, type: _type, ...settings } = parsed.data as Record<string, unknown>;
  if (!n.active) notes.push('disabled in Kuma: the integration is disabled');
  return { kind: 'integration', integration: { kind, enabled: n.active, settings }, notes };
}
