import { channelSchema, httpUrl } from './common.ts';

/** A Google Chat space webhook (`https://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…`). */
export const schema = channelSchema('googlechat', { url: httpUrl });
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the webhook URL carries `key` and `token`.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['url'] as const;
export const lifecycle = false;
