import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Whether an E.164 number (`+` and digits) may subscribe by SMS under `allowed` (config
 * `status_pages.subscriptions.sms_countries`): a calling-code entry (`+44`) admits every number under
 * it; an ISO 3166 entry (`GB`) admits numbers that are valid numbers of that country by its numbering
 * plan (libphonenumber-js's metadata: `US` does not admit +1 876, Jamaica; non-geographic codes such as
 * +882 belong to no country). An empty list admits nothing (SMS subscriptions off).
 */
export function smsNumberAllowed(number: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return false;
  const parsed = parsePhoneNumberFromString(number);
  if (!parsed) return false;
  if (allowed.includes(`+${parsed.countryCallingCode}`)) return true;
  return parsed.country !== undefined && allowed.includes(parsed.country) && parsed.isValid();
}

/** The number block of an E.164 number: its first `digits` digits (country code included), for the per-block cap. */
export function numberBlock(number: string, digits: number): string {
  return number.replace(/^\+/, '').slice(0, digits);
}

/** Domains that ignore dots in the local part, and the one name they share. */
const DOTLESS_DOMAINS: Readonly<Record<string, string>> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The mailbox an address delivers to, for counting confirmation mails (never for sending): lower
 * case, the `+tag` of plus-addressing removed (`victim+7@example.com` → `victim@example.com`; done for
 * every domain: counting two mailboxes as one only makes the cap stricter), and for Gmail the dots
 * of the local part removed and googlemail.com read as gmail.com (Gmail delivers `j.doe@` to `jdoe@`).
 */
export function mailboxOf(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  let local = lower.slice(0, at);
  let domain = lower.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  if (dotless) {
    local = local.replaceAll('.', '');
    domain = dotless;
  }
  return `${local}@${domain}`;
}
