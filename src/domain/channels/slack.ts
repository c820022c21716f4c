import { channelSchema, httpUrl } from './common.ts';

/** A Slack incoming webhook (`https://hooks.slack.com/services/…`). */
export const schema = channelSchema('slack', { url: httpUrl });
export const lifecycle = false;
