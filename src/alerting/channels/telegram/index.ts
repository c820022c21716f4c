import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, facts, joinUrl, jsonRequest } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** Escapes `& < >` (and `"`, for attributes) as Telegram's HTML parse mode requires. */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Renders a message as Telegram HTML (≤4096 characters): `<b>title</b>`, the text, the facts as
 * `<b>Label:</b> value` lines and `<a href="link">Open in Pharos</a>`.
 */
export function telegramText(message: AlertMessage): string {
  const lines = facts(message)
    .filter((f) => f.label !== 'Link')
    .map((f) => `<b>${esc(f.label)}:</b> ${esc(f.value)}`);
  const link = message.link ? `\n<a href="${esc(message.link)}">Open in Pharos</a>` : '';
  const head = `<b>${esc(cut(message.title || 'Pharos', 256))}</b>\n\n${esc(cut(message.text, 2000))}\n\n`;
  return head + cut(lines.join('\n'), 4096 - head.length - link.length - 1) + link;
}

/**
 * A Telegram channel: Bot API `POST <api_url>/bot<token>/sendMessage` with
 * `{chat_id, text, parse_mode: "HTML", message_thread_id?, link_preview_options: {is_disabled: true}}`.
 * Errors name the host only: the bot token is in the path.
 */
export function createTelegramChannel(config: ChannelConfigOf<'telegram'>): Channel {
  const http = createHttpSender({ label: `telegram ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.api_url, `bot${config.bot_token}/sendMessage`);
  return {
    name: config.name,
    send: (message, delivery) =>
      http.request(
        jsonRequest(url, {
          chat_id: config.chat_id,
          ...(config.topic_id !== undefined ? { message_thread_id: config.topic_id } : {}),
          text: telegramText(message),
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
        }),
        delivery,
      ),
    close: () => http.close(),
  };
}

/** The Telegram plugin. */
export const telegram: ChannelPlugin<'telegram'> = {
  create: createTelegramChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'telegram', bot_token: '123456:SECRET123', chat_id: '-1001234567890', topic_id: 7, api_url: base, timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
