import { AppError } from '../lib/errors.ts';
import { PROTOCOL_SECRETS, type Protocol, type SecretKind } from './index.ts';
import { MASK, maskUrl, passwordSpan } from './target.ts';

export { MASK, maskUrl } from './target.ts';

/**
 * Secrets of monitors (issue #30 point 4): the one masking function the API and the console share,
 * and the merge of `***` sent back. What is secret is declared once per protocol, in its definition's
 * `secrets` (src/protocols/types.ts), and for every protocol the password of a `url` (basic-auth
 * `https://user:pass@host/…`, connection URLs `postgres://user:pass@host/db`).
 *
 * Nobody reads a secret back, whatever their role or token scope: it is written, then only used by
 * the checks. A writer sends {@link MASK} back (the form or the JSON as read) to keep the stored
 * value — but only while the monitor's target (scheme, user, host, port) stays the one the secret was
 * given for, so an editor cannot point a monitor elsewhere and have the check deliver the secret.
 */

/** The fields of a monitor masking looks at: its protocol, target and settings. */
export interface MaskableMonitor {
  protocol: Protocol;
  url: string;
  settings: Record<string, unknown>;
}

/** `settings` of `protocol` with every declared secret masked (a copy; the input is not changed). */
export function maskSettings(protocol: Protocol, settings: Record<string, unknown>): Record<string, unknown> {
  const secrets = PROTOCOL_SECRETS[protocol];
  const out = { ...settings };
  for (const [field, kind] of Object.entries(secrets)) {
    const v = out[field];
    if (v === null || v === undefined) continue;
    out[field] = maskValue(kind, v);
  }
  return out;
}

function maskValue(kind: SecretKind, v: unknown): unknown {
  if (kind === 'header_values') return (v as Array<{ name: string; value: string }>).map((h) => ({ name: h.name, value: MASK }));
  if (kind === 'url_password') return maskUrl(String(v));
  return MASK;
}

/**
 * The monitor as anyone may see it: `url`'s password and the protocol's secret settings masked. The
 * one function behind the API's monitor JSON, the console's monitor page and edit form.
 */
export function maskMonitor<M extends MaskableMonitor>(m: M): M {
  return { ...m, url: maskUrl(m.url), settings: maskSettings(m.protocol, m.settings) };
}

/** What a secret is bound to: scheme, user, host and port of a URL (a bare host: itself, lower-cased). */
function targetOf(url: string): string {
  try {
    const u = new URL(url.trim());
    return `${u.protocol}//${u.username}@${u.host}`;
  } catch {
    return url.trim().toLowerCase();
  }
}

const refuse = (path: string, rule: string) => new AppError(400, 'validation.invalid', `${path}: ${rule}`, [{ path, message: rule }]);
const NOTHING = `"${MASK}" keeps the stored secret, and there is none here: give the value`;
const MOVED = `"${MASK}" keeps the stored secret only while the target (scheme, user, host, port) stays the same: give the value again for the new target`;

/**
 * A monitor body (create or update) with every `***` a writer sent back replaced by the stored
 * secret it stands for: the password of `url` (same scheme, user, host and port as stored), a header
 * value (the stored header of the same name, case-insensitive, n-th of that name; only while the
 * target stays the same). `current` is null on create, where `***` stands for nothing.
 * @param body the parsed body (`url` and the protocol's fields as the API names them)
 * @param current the stored monitor, or null
 * @returns a copy of `body` with the secrets restored (the body itself when it holds no `***`)
 * @throws AppError 400 `validation.invalid` naming the field when a `***` has nothing to keep
 */
export function keepSecrets<B extends { url?: string | undefined; protocol?: Protocol | undefined }>(body: B, current: MaskableMonitor | null): B {
  const out: Record<string, unknown> = { ...body };
  let url = body.url ?? current?.url;
  const urlSpan = body.url === undefined ? null : passwordSpan(body.url);
  if (body.url !== undefined && urlSpan && body.url.slice(urlSpan[0], urlSpan[1]) === MASK) {
    const storedSpan = current ? passwordSpan(current.url) : null;
    if (!current || !storedSpan) throw refuse('url', NOTHING);
    if (targetOf(body.url) !== targetOf(current.url)) throw refuse('url', MOVED);
    url = body.url.slice(0, urlSpan[0]) + current.url.slice(storedSpan[0], storedSpan[1]) + body.url.slice(urlSpan[1]);
    out.url = url;
  }
  const protocol = body.protocol ?? current?.protocol ?? 'http';
  const sameTarget = current !== null && url !== undefined && targetOf(url) === targetOf(current.url);
  for (const [field, kind] of Object.entries(PROTOCOL_SECRETS[protocol])) {
    const given = out[field];
    if (given === null || given === undefined) continue;
    const stored = current?.protocol === protocol ? current.settings[field] : undefined;
    if (kind === 'header_values') out[field] = keepHeaders(field, given as Array<{ name: string; value: string }>, stored as Array<{ name: string; value: string }> | undefined, sameTarget);
    else if (kind === 'url_password') {
      const v = String(given);
      const span = passwordSpan(v);
      if (span && v.slice(span[0], span[1]) === MASK) {
        const s = typeof stored === 'string' ? passwordSpan(stored) : null;
        if (!s) throw refuse(field, NOTHING);
        if (targetOf(v) !== targetOf(stored as string)) throw refuse(field, MOVED);
        out[field] = v.slice(0, span[0]) + (stored as string).slice(s[0], s[1]) + v.slice(span[1]);
      }
    } else if (given === MASK) {
      if (stored === undefined || stored === null) throw refuse(field, NOTHING);
      if (!sameTarget) throw refuse(field, MOVED);
      out[field] = stored;
    }
  }
  return out as B;
}

function keepHeaders(field: string, given: Array<{ name: string; value: string }>, stored: Array<{ name: string; value: string }> | undefined, sameTarget: boolean) {
  if (!given.some((h) => h.value === MASK)) return given;
  const seen = new Map<string, number>();
  return given.map((h, i) => {
    const name = h.name.toLowerCase();
    const nth = seen.get(name) ?? 0;
    seen.set(name, nth + 1);
    if (h.value !== MASK) return h;
    const path = `${field}.${i}.value`;
    const same = (stored ?? []).filter((s) => s.name.toLowerCase() === name);
    const kept = same[nth];
    if (!kept) throw refuse(path, `${NOTHING} (no stored header "${h.name}")`);
    if (!sameTarget) throw refuse(path, MOVED);
    return { name: h.name, value: kept.value };
  });
}
