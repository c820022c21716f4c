import { z } from 'zod';
import { channelSchema, httpUrl } from './common.ts';

/** A Discord webhook (`https://discord.com/api/webhooks/<id>/<token>`), messages as embeds. */
export const schema = channelSchema('discord', {
  url: httpUrl,
  username: z.string().min(1).max(80).optional().describe('Overrides the webhook\'s default user name.'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the webhook URL carries its token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['url'] as const;
export const lifecycle = false;
