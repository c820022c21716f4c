import { z } from 'zod';
import { channelSchema, httpUrl } from './common.ts';

/** A Mattermost incoming webhook (`https://chat.example.com/hooks/<key>`), messages as attachments. */
export const schema = channelSchema('mattermost', {
  url: httpUrl,
  channel: z.string().min(1).optional().describe('Overrides the webhook\'s channel (when the webhook allows it).'),
  username: z.string().min(1).optional(),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the webhook URL carries its key.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['url'] as const;
export const lifecycle = false;
