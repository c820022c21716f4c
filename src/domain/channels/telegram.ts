import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/** A Telegram bot posting with the Bot API's `sendMessage` to one chat (and topic). */
export const schema = channelSchema('telegram', {
  bot_token: secret,
  chat_id: z.union([z.string().min(1), z.number().int()]).transform(String).describe('Chat id (`-100…` for groups and channels) or `@channelusername`.'),
  topic_id: z.number().int().min(1).optional().describe('Forum topic (`message_thread_id`) of a supergroup.'),
  api_url: apiBase('https://api.telegram.org'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the bot token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['bot_token'] as const;
export const lifecycle = false;
