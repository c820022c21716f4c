import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut } from '../render.ts';
import { ChannelError, type AlertMessage, type Channel, type ChannelPlugin, type ProviderAnswer } from '../types.ts';

/**
 * The SMS text (≤480 characters, about 3 segments): for an outage its title, cause and console
 * link; for a notice its title, link and text (a subscriber's code, or their unsubscribe link).
 */
export function smsText(message: AlertMessage): string {
  const o = message.outage;
  const parts = (o ? [message.title, o.description, message.link] : [message.title, message.link, message.text]).filter((p): p is string => Boolean(p));
  return cut(parts.join('\n'), 480);
}

/**
 * A Twilio SMS channel: per recipient, `POST <api_url>/2010-04-01/Accounts/<sid>/Messages.json`
 * (form-encoded `To`, `From` or `MessagingServiceSid`, `Body`) with HTTP Basic `sid:auth_token`.
 * Twilio answers 201 with the message resource. When a later recipient fails after earlier ones
 * got the message, the error is permanent (a retry would text the others again), naming who got it.
 */
export function createTwilioChannel(config: ChannelConfigOf<'twilio'>): Channel {
  const label = `twilio ${config.name}`;
  const http = createHttpSender({ label, timeoutSeconds: config.timeout_seconds });
  const url = `${config.api_url.replace(/\/+$/, '')}/2010-04-01/Accounts/${config.account_sid}/Messages.json`;
  const auth = `Basic ${Buffer.from(`${config.account_sid}:${config.auth_token}`).toString('base64')}`;
  const sender: Record<string, string> = config.from.startsWith('MG') ? { MessagingServiceSid: config.from } : { From: config.from };
  return {
    name: config.name,
    async send(message, delivery) {
      const body = smsText(message);
      const sent: string[] = [];
      let answer: ProviderAnswer | null = null;
      for (const to of config.to) {
        const form = new URLSearchParams({ To: to, ...sender, Body: body }).toString();
        try {
          answer = await http.request({ url, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body: form }, { deliveryId: `${delivery.deliveryId}.${to}` });
        } catch (e) {
          if (sent.length === 0 || !(e instanceof ChannelError)) throw e;
          throw new ChannelError(`${e.message}; sent to ${sent.join(', ')} before ${to} failed`, true, e.answer);
        }
        sent.push(to);
      }
      return answer!;
    },
    close: () => http.close(),
  };
}

/** The Twilio plugin. */
export const twilio: ChannelPlugin<'twilio'> = {
  create: createTwilioChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'twilio', account_sid: `AC${'0123456789abcdef'.repeat(2)}`, auth_token: 'SECRET123', from: '+15550001111', to: ['+15552223333'], api_url: base, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
