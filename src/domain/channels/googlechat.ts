import { channelSchema, httpUrl } from './common.ts';

/** A Google Chat space webhook (`https://chat.googleapis.com/v1/spaces/…/messages?key=…&token=…`). */
export const schema = channelSchema('googlechat', { url: httpUrl });
export const lifecycle = false;
