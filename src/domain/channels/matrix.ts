import { z } from 'zod';
import { channelSchema, httpUrl, secret } from './common.ts';

/** A Matrix room, through the client-server API of a homeserver (`m.room.message`, `m.text`). */
export const schema = channelSchema('matrix', {
  homeserver: httpUrl,
  room_id: z.string().regex(/^![^:\s]+:\S+$/, 'must be a room id such as !abc:example.org').describe('Room id, `!abc:example.org` (the bot\'s user must have joined it).'),
  access_token: secret,
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the access token.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['access_token'] as const;
export const lifecycle = false;
