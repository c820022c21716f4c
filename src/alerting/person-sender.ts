import type { PersonMessage, PersonSender } from '../core/people-pages.ts';
import type { AlertMessage } from '../domain/alert.ts';
import { TypedChannelConfig, type ChannelConfigOf } from '../domain/channels/index.ts';
import { randomBase62 } from '../domain/ids.ts';
import { PROVIDER } from '../domain/people.ts';
import type { Clock } from '../lib/clock.ts';
import { createHttpSender } from './channels/http.ts';
import { cut, joinUrl, jsonRequest } from './channels/render.ts';
import { telegramText } from './channels/telegram/index.ts';
import { integrationSender } from './integration-channels.ts';

/** `&`, `<`, `>`, quotes escaped for TwiML. */
const xml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Places a voice call through Twilio's Calls API with the Twilio integration's account:
 * `POST <api_url>/2010-04-01/Accounts/<sid>/Calls.json` (form-encoded `To`, `From`, `Twiml` =
 * `<Response><Say>…</Say></Response>`), HTTP Basic `sid:auth_token`, as the SMS channel
 * (channels/twilio) sends messages. Twilio answers 201 with the call resource; the call rings at once.
 * @throws ChannelError (from the HTTP sender) when Twilio refuses or cannot be reached
 */
async function call(config: ChannelConfigOf<'twilio'>, to: string, speech: string): Promise<void> {
  const http = createHttpSender({ label: `twilio voice ${config.name}`, timeoutSeconds: config.timeout_seconds });
  try {
    const url = `${config.api_url.replace(/\/+$/, '')}/2010-04-01/Accounts/${config.account_sid}/Calls.json`;
    const auth = `Basic ${Buffer.from(`${config.account_sid}:${config.auth_token}`).toString('base64')}`;
    // A Messaging Service SID cannot place calls: the number is needed (`from` must be E.164 for voice).
    const twiml = `<Response><Say>${xml(cut(speech, 1500))}</Say><Pause length="1"/><Say>${xml(cut(speech, 1500))}</Say></Response>`;
    const body = new URLSearchParams({ To: to, From: config.from, Twiml: twiml }).toString();
    await http.request({ url, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body }, { deliveryId: `dlv_${randomBase62(22)}` });
  } finally {
    await http.close();
  }
}

/**
 * A page to a Telegram chat with inline buttons (issue 34 point 4): Bot API `sendMessage` as the
 * Telegram channel sends it, plus `reply_markup: {inline_keyboard: [[{text, callback_data}, …]]}`
 * (https://core.telegram.org/bots/api#inlinekeyboardmarkup); the buttons come back to `/hooks/telegram/…`.
 * @throws ChannelError (from the HTTP sender) when Telegram refuses or cannot be reached
 */
async function telegramWithButtons(config: ChannelConfigOf<'telegram'>, chatId: string, alert: AlertMessage, buttons: Array<{ text: string; data: string }>): Promise<void> {
  const http = createHttpSender({ label: `telegram ${config.name}`, timeoutSeconds: config.timeout_seconds });
  try {
    const body = { chat_id: chatId, text: telegramText(alert), parse_mode: 'HTML', link_preview_options: { is_disabled: true }, reply_markup: { inline_keyboard: [buttons.map((b) => ({ text: b.text, callback_data: b.data }))] } };
    await http.request(jsonRequest(joinUrl(config.api_url, `bot${config.bot_token}/sendMessage`), body), { deliveryId: `dlv_${randomBase62(22)}` });
  } finally {
    await http.close();
  }
}

/**
 * The {@link PersonSender} (issue 34 point 1): a person's address put into the provider integration's
 * settings (Twilio `to`, email `to`, ntfy `topic`, Pushover `user_key`, Telegram `chat_id`; domain/people.ts
 * PROVIDER) and sent by the existing channel of that kind as a notice (a throwaway sender, closed after);
 * voice calls through Twilio's Calls API. An ntfy method without an ntfy integration publishes to ntfy.sh.
 */
export function createPersonSender(deps: { clock: Clock }): PersonSender {
  return async (target, message: PersonMessage) => {
    if (target.kind === 'voice') {
      const parsed = TypedChannelConfig.safeParse({ ...target.provider!.settings, name: target.provider!.name, type: 'twilio' });
      if (!parsed.success || parsed.data.type !== 'twilio') throw new Error(`integration "${target.provider!.name}" has invalid Twilio settings`);
      if (!parsed.data.from.startsWith('+')) throw new Error(`integration "${parsed.data.name}": a voice call needs a phone number as "from", not a Messaging Service`);
      await call(parsed.data, target.address, message.speech ?? `${message.title}. ${message.text}`);
      return;
    }
    const p = PROVIDER[target.kind];
    const base = target.provider ?? { name: 'ntfy.sh', kind: 'ntfy' as const, settings: {} };
    const channel = integrationSender({ name: base.name, kind: base.kind, settings: { ...base.settings, [p.field]: p.list ? [target.address] : target.address } });
    const alert: AlertMessage = { kind: 'notice', title: message.title, text: message.text, outage: null, escalation: null, link: message.link, createdAt: new Date(deps.clock.now()).toISOString() };
    if (target.kind === 'telegram' && message.buttons && target.provider) {
      const parsed = TypedChannelConfig.safeParse({ ...target.provider.settings, name: target.provider.name, type: 'telegram' });
      if (!parsed.success || parsed.data.type !== 'telegram') throw new Error(`integration "${target.provider.name}" has invalid Telegram settings`);
      await telegramWithButtons(parsed.data, target.address, alert, message.buttons);
      return;
    }
    try {
      await channel.send(alert, { deliveryId: `dlv_${randomBase62(22)}` });
    } finally {
      await channel.close();
    }
  };
}
