import { channelSchema, httpUrl } from './common.ts';

/** A Microsoft Teams incoming webhook / Workflows URL (Adaptive Card message). */
export const schema = channelSchema('teams', { url: httpUrl });
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the webhook URL is the credential.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['url'] as const;
export const lifecycle = false;
