import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Telegram inline buttons of a page (issue 34 point 4). Callback data is at most 64 bytes
 * (https://core.telegram.org/bots/api#inlinekeyboardbutton), too short for a sealed page-link token,
 * so a button carries compact signed claims instead: `ack:<incident>.<expiry s, base36>.<id>.<mac>`
 * (`res:` to resolve), the mac 96 bits of HMAC-SHA256 over action, outage uuid, person uuid, expiry
 * and id, keyed by {@link telegramKeys} `mac` (derived from the bot token). The person is not in the
 * data: it is the owner of the verified Telegram method of the chat the button was pressed in, and
 * the mac holds only for the person the page was sent to.
 */
export interface TelegramClaims {
  action: 'ack' | 'resolve';
  incident: number;
  /** Expiry, epoch ms (whole seconds). */
  expiresAt: number;
  /** Random id; a use is recorded in the timeline under it (single use, as page links). */
  nonce: string;
}

/**
 * The two secrets derived from a bot token: `mac` keys the buttons' callback data, `webhook` is the
 * secret path part of `/hooks/telegram/<webhook>` and the `secret_token` to give setWebhook (Telegram
 * sends it back as X-Telegram-Bot-Api-Secret-Token; 1–256 of `A-Z a-z 0-9 _ -`).
 */
export function telegramKeys(botToken: string): { mac: Buffer; webhook: string } {
  const d = (label: string) => createHmac('sha256', botToken).update(label).digest();
  return { mac: d('pharos/telegram-callback/v1'), webhook: d('pharos/telegram-webhook/v1').toString('base64url').slice(0, 32) };
}

const macOf = (key: Buffer, c: TelegramClaims, outageUuid: string, userUuid: string) =>
  createHmac('sha256', key).update([c.action, outageUuid, userUuid, c.expiresAt, c.nonce].join('|')).digest('base64url').slice(0, 16);

/** The callback data of a button (≤ 64 bytes). */
export function telegramCallbackData(key: Buffer, c: TelegramClaims, outageUuid: string, userUuid: string): string {
  return `${c.action === 'ack' ? 'ack' : 'res'}:${c.incident}.${Math.floor(c.expiresAt / 1000).toString(36)}.${c.nonce}.${macOf(key, c, outageUuid, userUuid)}`;
}

/** Callback data read back (mac not yet checked), or null when it is not Pharos's. */
export function parseTelegramCallback(data: string): (TelegramClaims & { mac: string }) | null {
  const m = /^(ack|res):(\d{1,9})\.([0-9a-z]{1,10})\.([A-Za-z0-9]{1,16})\.([A-Za-z0-9_-]{16})$/.exec(data);
  if (!m) return null;
  return { action: m[1] === 'ack' ? 'ack' : 'resolve', incident: Number(m[2]), expiresAt: parseInt(m[3]!, 36) * 1000, nonce: m[4]!, mac: m[5]! };
}

/** Whether `mac` was made by {@link telegramCallbackData} for this outage and person (constant time). */
export function telegramMacOk(key: Buffer, c: TelegramClaims & { mac: string }, outageUuid: string, userUuid: string): boolean {
  const want = Buffer.from(macOf(key, c, outageUuid, userUuid));
  const given = Buffer.from(c.mac);
  return want.length === given.length && timingSafeEqual(want, given);
}
