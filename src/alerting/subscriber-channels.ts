import type { Core } from '../core/index.ts';
import { SUBSCRIBER_CHANNEL_PREFIX } from '../core/subscriptions.ts';
import type { Store } from '../store/index.ts';
import type { ChannelLookup } from './dispatcher.ts';
import { webhookTargetProblem } from '../domain/subscriber-target.ts';
import { createChannel } from './channels/index.ts';
import type { IntegrationChannels } from './integration-channels.ts';
import { createHttpSender } from './channels/http.ts';
import { slackPayload } from './channels/slack/index.ts';
import { teamsPayload } from './channels/teams/index.ts';
import { ChannelError, type AlertMessage, type Channel, type Delivery, type ProviderAnswer } from './channels/types.ts';
import { publicOnlyConnector } from './public-connector.ts';

/** Timeout of a subscriber's webhook, seconds. */
const WEBHOOK_TIMEOUT_S = 10;

/**
 * The outbox's channel lookup: integrations (`int_…`, or a config.yaml name of an older row), built
 * from the database when sent (integration-channels.ts), and `subscriber:<uuid>` rows
 * (status-page subscribers) resolved at send time. A subscriber message is sent with the channel
 * code of its kind — email through the configured email channel's SMTP server to the subscriber's
 * address, Slack/Teams to the subscriber's webhook, SMS through the twilio channel to the number —
 * with the unsubscribe link added.
 * A subscriber gone by then (unsubscribed, page deleted) fails the row permanently; nothing is sent.
 * Metrics name these channels `subscribers-email|slack|teams|sms` (not one label per subscriber).
 *
 * A visitor's webhook URL is checked again before each send against the current policy
 * (`status_pages.subscriptions`), and sent through {@link publicOnlyConnector}: only public
 * addresses, checked on the resolved address at connect time (DNS rebinding); a refusal fails the
 * row permanently. `allow_private_targets: true` turns both off (labs and tests).
 */
export function channelLookup(deps: { integrations: Pick<IntegrationChannels, 'get'>; store: Store; core: Core }): ChannelLookup {
  const { integrations, store, core } = deps;
  const kinds = ['email', 'slack', 'teams', 'sms'] as const;
  const subscriberChannels = new Map(
    kinds.map((kind) => [kind, { name: `subscribers-${kind}`, send: (m: AlertMessage, uuid: string, d: Delivery) => sendToSubscriber(kind, uuid, m, d) }] as const),
  );

  async function sendToSubscriber(kind: (typeof kinds)[number], uuid: string, message: AlertMessage, delivery: Delivery): Promise<ProviderAnswer> {
    const s = await store.async.subscribers.get(uuid);
    const page = s && (await store.async.statuspages.getById(s.statuspageId));
    if (!s || !page || s.channel !== kind) throw new ChannelError(`subscriber ${uuid} is gone (unsubscribed or page deleted)`, true);
    const links = core.subscriptions.links(page, s.uuid);
    // An SMS carries the title, the page link and the unsubscribe link (not the whole text: every
    // 160 characters cost); the confirmation code goes out as written.
    const withLink: AlertMessage =
      kind === 'sms' ? (s.confirmedAt === null ? message : { ...message, text: `Unsubscribe: ${links.unsubscribe}`, link: message.link ?? links.page }) : { ...message, text: `${message.text}\n\nUnsubscribe: ${links.unsubscribe}` };
    let channel: Channel;
    if (kind === 'sms') {
      const sms = core.subscriptions.smsChannel();
      if (!sms || sms.type !== 'twilio') throw new ChannelError('no twilio channel is configured for SMS subscribers', true);
      // A code was counted when it was asked for; a notice counts now, each attempt (each may cost).
      const capped = s.confirmedAt === null ? undefined : await core.subscriptions.takeNoticeText();
      if (capped) throw new ChannelError(`subscribers-sms: not sent: ${capped}`, true);
      channel = createChannel({ ...sms, name: 'subscribers-sms', to: [s.target] });
    } else if (kind === 'email') {
      const mail = core.subscriptions.emailChannel();
      if (!mail || mail.type !== 'email') throw new ChannelError('no email channel is configured for subscriber mail', true);
      channel = createChannel({ ...mail, name: 'subscribers-email', to: [s.target] });
    } else {
      channel = webhookChannel(kind, s.target);
    }
    try {
      return await channel.send(withLink, delivery);
    } finally {
      await channel.close();
    }
  }

  const limits = core.config.status_pages.subscriptions;
  /** A subscriber's Slack/Teams channel: the configured channels' payloads over a guarded pool. */
  function webhookChannel(kind: 'slack' | 'teams', url: string): Channel {
    const problem = webhookTargetProblem(kind, url, { allowedHosts: limits.allowed_webhook_hosts, allowPrivateTargets: limits.allow_private_targets });
    if (problem) throw new ChannelError(`subscribers-${kind}: webhook URL refused: ${problem}`, true);
    const http = createHttpSender({
      label: `subscribers-${kind}`,
      timeoutSeconds: WEBHOOK_TIMEOUT_S,
      connect: limits.allow_private_targets ? undefined : publicOnlyConnector(WEBHOOK_TIMEOUT_S * 1000),
    });
    const render = kind === 'slack' ? slackPayload : teamsPayload;
    return {
      name: `subscribers-${kind}`,
      send: (m, delivery) => http.request({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(render(m)) }, delivery),
      close: () => http.close(),
    };
  }

  return {
    get(name: string): Channel | undefined | Promise<Channel> {
      if (!name.startsWith(SUBSCRIBER_CHANNEL_PREFIX)) return integrations.get(name);
      const uuid = name.slice(SUBSCRIBER_CHANNEL_PREFIX.length);
      return store.async.subscribers.get(uuid).then((s) => {
        const c = subscriberChannels.get(s?.channel ?? 'email')!;
        return { name: c.name, send: (m: AlertMessage, d: Delivery) => c.send(m, uuid, d), close: async () => {} };
      });
    },
  };
}
