import { z } from 'zod';
import { channelSchema, httpUrl } from './common.ts';

/**
 * A Rocket.Chat incoming webhook (https://docs.rocket.chat/docs/integrations, "Incoming webhook":
 * Administration → Integrations → New → Incoming), messages as one attachment.
 */
export const schema = channelSchema('rocketchat', {
  url: httpUrl.describe('The webhook URL, `https://chat.example.com/hooks/<id>/<token>` (the token makes it a secret).'),
  channel: z.string().regex(/^[#@]\S+$/, 'must be #channel or @user').optional().describe('Overrides the webhook\'s channel: `#channel` or `@user`.'),
  alias: z.string().min(1).optional().describe('Overrides the shown sender name.'),
  emoji: z.string().regex(/^:[\w+-]+:$/, 'must be an emoji code such as :bell:').optional().describe('Overrides the avatar with an emoji, e.g. `:rotating_light:`.'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the webhook URL carries its token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['url'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
