import { channelSchema, httpUrl } from './common.ts';

/** A Microsoft Teams incoming webhook / Workflows URL (Adaptive Card message). */
export const schema = channelSchema('teams', { url: httpUrl });
export const lifecycle = false;
