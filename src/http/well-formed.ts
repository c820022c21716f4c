import type { Context, MiddlewareHandler } from 'hono';
import { AppError, invalid } from '../lib/errors.ts';

/**
 * The deepest nesting of arrays and objects a JSON request body may have: the body itself is level 1.
 * No request of the API needs more than a handful; past it, the parsers and validators that recurse
 * (zod, JSON.stringify of what was stored) overflow the stack (issue #30 point 6).
 */
export const MAX_JSON_DEPTH = 64;

/** The rule a text input with U+0000 breaks (PostgreSQL `text` cannot hold it; issue #30 point 5). */
export const NUL_RULE = 'must not contain the NUL character (U+0000)';

const ILL_FORMED_RULE = 'must be well-formed Unicode (no unpaired surrogates)';

/** A name as shown in an error message: a NUL in it spelled `\u0000` so the message stays printable. */
const shown = (name: string) => name.replaceAll('\0', '\\u0000');

/** The rule a JSON string (key or value) breaks, or null: no NUL, no unpaired surrogate. */
function stringRule(s: string): string | null {
  if (s.includes('\0')) return NUL_RULE;
  return s.isWellFormed() ? null : ILL_FORMED_RULE;
}

/**
 * The first problem, in document order, of a parsed JSON value: a string (key or value) with a NUL
 * character or that is not well-formed Unicode (`String.prototype.isWellFormed`: an unpaired surrogate
 * such as `"\ud800"`), or an array or object nested deeper than `maxDepth` levels (the value itself is
 * level 1). `path` is dotted (`request_headers.0.value`, `(body)` for the value itself). Walks with its
 * own stack, never recursion, so a 100,000-deep value is judged without overflowing the call stack.
 * @returns `{path, rule}` of the first problem, or null when there is none
 */
export function firstBadJson(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; rule: string } | null {
  // [value, its path, its level (1 for the body), the key it sits under in an object (checked when reached)]
  const stack: Array<[unknown, string, number, string | undefined]> = [[value, '', 1, undefined]];
  while (stack.length > 0) {
    const [v, path, level, key] = stack.pop()!;
    const at = path || '(body)';
    if (key !== undefined) {
      const rule = stringRule(key);
      if (rule) return { path: at, rule };
    }
    if (typeof v === 'string') {
      const rule = stringRule(v);
      if (rule) return { path: at, rule };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (level > maxDepth) return { path: at, rule: `must not nest deeper than ${maxDepth} levels` };
    const prefix = path ? `${path}.` : '';
    // Pushed last-first, so the first child is judged first: the message names the first problem.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], prefix + i, level + 1, undefined]);
    } else {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], prefix + shown(entries[i]![0]), level + 1, entries[i]![0]]);
    }
  }
  return null;
}

/** Throws the 400 for the first field of `pairs` (name or value) holding a NUL; `kind` names where (`query`, `form`, `cookie`). */
function refuseNulPairs(kind: string, pairs: Iterable<[string, unknown]>): void {
  for (const [name, value] of pairs) {
    if (name.includes('\0') || (typeof value === 'string' && value.includes('\0'))) throw invalid(`${kind}.${shown(name)}`, NUL_RULE);
  }
}

/** The cookies of a `Cookie` header as the routes read them (`hono/cookie`: values percent-decoded; an undecodable one kept as sent). */
function cookies(header: string): Array<[string, string]> {
  return header.split(';').map((part) => {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    const raw = eq < 0 ? '' : part.slice(eq + 1).trim();
    try {
      return [name, decodeURIComponent(raw)];
    } catch {
      // Not valid percent-encoding (`%zz`): the cookie reader keeps such a value as sent, NUL-free.
      return [name, raw];
    }
  });
}

/** Judges a request's body (any method but GET/HEAD): form fields, or a JSON (or any other text) body. */
async function judgeBody(c: Context): Promise<void> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  // A clone: the console and status-page sub-apps read `c.req.raw` again, and a read body cannot be re-read.
  const request = c.req.raw.clone();
  if (type.startsWith('multipart/form-data')) {
    let form: FormData;
    try {
      form = await request.formData();
    } catch (e) {
      if (e instanceof AppError) throw e;
      // A multipart body without its boundary, or cut short: the route's parser would throw too.
      throw new AppError(400, 'request.malformed', '(body): malformed multipart/form-data (missing boundary or cut short)');
    }
    refuseNulPairs('form', form.entries());
    return;
  }
  const text = await request.text();
  if (type.startsWith('application/x-www-form-urlencoded')) {
    if (text.includes('%00') || text.includes('\0')) refuseNulPairs('form', new URLSearchParams(text).entries());
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: a JSON route answers it as malformed itself; any other text must still be free of NUL.
    if (text.includes('\0')) throw invalid('(body)', NUL_RULE);
    return;
  }
  const bad = firstBadJson(body);
  if (bad !== null) throw invalid(bad.path, bad.rule);
}

/**
 * Refuses, at the edge and for every route (API, console, status pages, SSO), the inputs no store
 * may see (issue #14 point 6, issue #30 points 5 and 6), with a 400 `validation.invalid` naming where:
 * - a NUL character (U+0000) in the decoded path (`(path)`), a query parameter's name or value
 *   (`query.<name>`), a cookie's decoded value (`cookie.<name>`), a form field (`form.<name>`,
 *   urlencoded or multipart), a JSON body's key or string value (`<dotted path>`), or any other text body (`(body)`):
 *   PostgreSQL cannot store it in `text` (an anonymous 500 before), and both stores must answer alike;
 * - a JSON string that is not well-formed Unicode (an unpaired surrogate): stored, it breaks every
 *   strict JSON reader of the resource later;
 * - JSON nested deeper than {@link MAX_JSON_DEPTH} levels, judged without recursion.
 * Raw NUL bytes in the request line or headers never get here: Node's parser refuses them (`clientErrorHandler`).
 * Malformed JSON passes on to the route's validator, which answers it as before. The body is read from
 * a clone, so every route (and sub-app) reads it again as sent, and it is read before anything is refused:
 * no answer leaves a body unread. A multipart body that cannot be parsed is a 400 `request.malformed`.
 * @throws AppError 400 `validation.invalid`: `<where>: must not contain the NUL character (U+0000)`,
 *   `<field>: must be well-formed Unicode (no unpaired surrogates)`, `<field>: must not nest deeper than 64 levels`
 */
export const wellFormedInput: MiddlewareHandler = async (c, next) => {
  // The body first, even when the URL is refused: an answer sent before the body is read ends the
  // connection under the client's next request (the server drains a left body for 500 ms, then drops the socket).
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.raw.body) await judgeBody(c);
  // Percent-encoding is the only way a NUL reaches the URL or a cookie (a raw one is refused by Node): the common request pays two `includes`.
  if (c.req.url.includes('%00')) {
    if (c.req.path.includes('\0')) throw invalid('(path)', NUL_RULE);
    refuseNulPairs('query', new URL(c.req.url).searchParams.entries());
  }
  const cookie = c.req.header('cookie');
  if (cookie?.includes('%00')) refuseNulPairs('cookie', cookies(cookie));
  return next();
};
