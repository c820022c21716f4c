import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/**
 * Bark push notifications to an iPhone (https://github.com/Finb/Bark), through bark-server's API v2
 * (https://github.com/Finb/bark-server/blob/master/docs/API_V2.md): `POST <server>/push`.
 */
export const schema = channelSchema('bark', {
  server: apiBase('https://api.day.app').describe('The bark-server, default Bark\'s public one; a self-hosted server works the same.'),
  device_key: secret.describe('The device key the Bark app shows (the part after the server in its sample URL).'),
  level: z.enum(['active', 'timeSensitive', 'passive', 'critical']).default('timeSensitive').describe('Interruption level of alerts: `active` (default sound), `timeSensitive` (breaks through focus modes), `passive` (silent), `critical` (sounds even when muted); recoveries go out `active`.'),
  group: z.string().min(1).default('Pharos').describe('Group of the notifications in the app.'),
  sound: z.string().regex(/^[\w-]{1,64}$/).optional().describe('A sound of the app, e.g. `alarm`, `minuet`.'),
  icon: z.url({ protocol: /^https?$/ }).optional().describe('An icon URL shown with the notification (iOS 15+).'),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the device key.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['device_key'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
