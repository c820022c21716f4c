import { z } from 'zod';
import { channelSchema, httpUrl, secret } from './common.ts';

/**
 * A Nextcloud Talk conversation, through Talk's chat API
 * (https://nextcloud-talk.readthedocs.io/en/latest/chat/, "Sending a new chat message"):
 * `POST /ocs/v2.php/apps/spreed/api/v1/chat/<token>` as a Nextcloud user.
 */
export const schema = channelSchema('nextcloudtalk', {
  base_url: httpUrl.describe('Nextcloud\'s address, e.g. `https://cloud.example.com` (with its sub-path, if any).'),
  conversation: z.string().regex(/^[A-Za-z0-9]{4,64}$/, 'must be the conversation token from its link (…/call/<token>)').describe('The conversation\'s token: the last part of its link, `https://cloud.example.com/call/<token>`.'),
  user: z.string().min(1).describe('The Nextcloud user that posts (a member of the conversation).'),
  password: secret.describe('An app password of that user (Personal settings → Security → Devices & sessions).'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the (app) password.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['password'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
