import type { Core } from '../core/index.ts';
import { SUBSCRIBER_CHANNEL_PREFIX } from '../core/subscriptions.ts';
import type { Store } from '../store/index.ts';
import type { ChannelLookup } from './dispatcher.ts';
import { createChannel } from './channels/index.ts';
import { ChannelError, type AlertMessage, type Channel, type Delivery, type ProviderAnswer } from './channels/types.ts';

/** Timeout of a subscriber's webhook, seconds. */
const WEBHOOK_TIMEOUT_S = 10;

/**
 * The outbox's channel lookup: configured channels by name, and `subscriber:<uuid>` rows
 * (status-page subscribers) resolved at send time. A subscriber message is sent with the channel
 * code of its kind — email through the configured email channel's SMTP server to the subscriber's
 * address, Slack/Teams to the subscriber's webhook — with the unsubscribe link added to the text.
 * A subscriber gone by then (unsubscribed, page deleted) fails the row permanently; nothing is sent.
 * Metrics name these channels `subscribers-email|slack|teams` (not one label per subscriber).
 */
export function channelLookup(deps: { configured: ReadonlyMap<string, Channel>; store: Store; core: Core }): ChannelLookup {
  const { configured, store, core } = deps;
  const kinds = ['email', 'slack', 'teams'] as const;
  const subscriberChannels = new Map(
    kinds.map((kind) => [kind, { name: `subscribers-${kind}`, send: (m: AlertMessage, uuid: string, d: Delivery) => sendToSubscriber(kind, uuid, m, d) }] as const),
  );

  async function sendToSubscriber(kind: (typeof kinds)[number], uuid: string, message: AlertMessage, delivery: Delivery): Promise<ProviderAnswer> {
    const s = store.subscribers.get(uuid);
    const page = s && store.statuspages.getById(s.statuspageId);
    if (!s || !page || s.channel !== kind) throw new ChannelError(`subscriber ${uuid} is gone (unsubscribed or page deleted)`, true);
    const links = core.subscriptions.links(page, s.uuid);
    const withLink: AlertMessage = { ...message, text: `${message.text}\n\nUnsubscribe: ${links.unsubscribe}` };
    let channel: Channel;
    if (kind === 'email') {
      const mail = core.subscriptions.emailChannel();
      if (!mail || mail.type !== 'email') throw new ChannelError('no email channel is configured for subscriber mail', true);
      channel = createChannel({ ...mail, name: 'subscribers-email', to: [s.target] });
    } else {
      channel = createChannel({ name: `subscribers-${kind}`, type: kind, url: s.target, timeout_seconds: WEBHOOK_TIMEOUT_S });
    }
    try {
      return await channel.send(withLink, delivery);
    } finally {
      await channel.close();
    }
  }

  return {
    get(name: string): Channel | undefined {
      if (!name.startsWith(SUBSCRIBER_CHANNEL_PREFIX)) return configured.get(name);
      const uuid = name.slice(SUBSCRIBER_CHANNEL_PREFIX.length);
      const s = store.subscribers.get(uuid);
      const c = subscriberChannels.get(s?.channel ?? 'email')!;
      return { name: c.name, send: (m, d) => c.send(m, uuid, d), close: async () => {} };
    },
  };
}
