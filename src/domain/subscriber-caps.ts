/**
 * The ISO 3166 codes libphonenumber-js (1.13, `metadata.min.json`, the metadata of its default
 * entry) has a numbering plan for: its `isSupportedCountry(code)` is `code` being an own key of that
 * metadata's `countries`, so `isSmsCountry` answers the same without loading the library (~2 MB of
 * heap) when the configuration is read (issue 38 point 1). test/unit/domain/subscriber-caps.test.ts
 * compares the two for every one- to three-letter code of either case; a library update that adds
 * or drops a country fails it until this list follows.
 */
const SMS_COUNTRIES: ReadonlySet<string> = new Set(
  ('AC AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BW BY BZ '
    + 'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO '
    + 'FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO '
    + 'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ '
    + 'MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT PW PY QA RE '
    + 'RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TG TH TJ TK TL TM TN TO TR '
    + 'TT TV TW TZ UA UG US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW').split(' '),
);

/** Whether `code` is an ISO 3166 code with a numbering plan (libphonenumber-js's `isSupportedCountry`, see SMS_COUNTRIES): `GB` yes, `UK` and `gb` no. */
export function isSmsCountry(code: string): boolean {
  return SMS_COUNTRIES.has(code);
}

/**
 * Whether an E.164 number (`+` and digits) may subscribe by SMS under `allowed` (config
 * `status_pages.subscriptions.sms_countries`): a calling-code entry (`+44`) admits every number under
 * it; an ISO 3166 entry (`GB`) admits numbers that are valid numbers of that country by its numbering
 * plan (libphonenumber-js's metadata: `US` does not admit +1 876, Jamaica; non-geographic codes such as
 * +882 belong to no country). An empty list admits nothing (SMS subscriptions off). libphonenumber-js
 * is loaded on the first number asked about (issue 38 point 1: a server without SMS never loads it).
 */
export async function smsNumberAllowed(number: string, allowed: readonly string[]): Promise<boolean> {
  if (allowed.length === 0) return false;
  const { parsePhoneNumberFromString } = await import('libphonenumber-js');
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
