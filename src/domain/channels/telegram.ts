import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/** A Telegram bot posting with the Bot API's `sendMessage` to one chat (and topic). */
export const schema = channelSchema('telegram', {
  bot_token: secret,
  /** Chat id (`-100…` for groups and channels) or `@channelusername`. */
  chat_id: z.union([z.string().min(1), z.number().int()]).transform(String),
  /** Forum topic (`message_thread_id`) of a supergroup. */
  topic_id: z.number().int().min(1).optional(),
  api_url: apiBase('https://api.telegram.org'),
});
export const lifecycle = false;
