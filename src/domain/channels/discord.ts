import { z } from 'zod';
import { channelSchema, httpUrl } from './common.ts';

/** A Discord webhook (`https://discord.com/api/webhooks/<id>/<token>`), messages as embeds. */
export const schema = channelSchema('discord', {
  url: httpUrl,
  /** Overrides the webhook's default user name. */
  username: z.string().min(1).max(80).optional(),
});
export const lifecycle = false;
