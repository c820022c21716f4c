import { z } from 'zod';
import { apiBase, channelSchema, secret } from './common.ts';

/**
 * Bark push notifications to an iPhone (https://github.com/Finb/Bark), through bark-server's API v2
 * (https://github.com/Finb/bark-server/blob/master/docs/API_V2.md): `POST <server>/push`.
 */
export const schema = channelSchema('bark', {
  /** The bark-server, default Bark's public one; a self-hosted server works the same. */
  server: apiBase('https://api.day.app'),
  /** The device key the Bark app shows (the part after the server in its sample URL). */
  device_key: secret,
  /**
   * Interruption level of alerts: `active` (default sound), `timeSensitive` (breaks through focus
   * modes), `passive` (silent), `critical` (sounds even when muted); recoveries go out `active`.
   */
  level: z.enum(['active', 'timeSensitive', 'passive', 'critical']).default('timeSensitive'),
  /** Group of the notifications in the app. */
  group: z.string().min(1).default('Pharos'),
  /** A sound of the app, e.g. `alarm`, `minuet`. */
  sound: z.string().regex(/^[\w-]{1,64}$/).optional(),
  /** An icon URL shown with the notification (iOS 15+). */
  icon: z.url({ protocol: /^https?$/ }).optional(),
});
/**
 * Settings paths stored sealed and shown as `***` (issue 32; domain/integration-settings.ts): the device key.
 * Dotted for nested fields, `*` for every value of a record.
 */
export const secretFields = ['device_key'] as const;
/** Receives acknowledgements? No: alerts and recoveries only. */
export const lifecycle = false;
