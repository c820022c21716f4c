import type { MiddlewareHandler } from 'hono';
import { invalid } from '../lib/errors.ts';

/**
 * The path (`request_headers.0.value`, `(body)`) of the first string in a parsed JSON value, key or
 * value, that is not well-formed Unicode (`String.prototype.isWellFormed`: an unpaired surrogate
 * such as `"\ud800"`), or null when every string is well-formed.
 */
export function firstIllFormed(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path || '(body)';
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = firstIllFormed(value[i], path ? `${path}.${i}` : String(i));
      if (bad !== null) return bad;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      if (!k.isWellFormed()) return p;
      const bad = firstIllFormed(v, p);
      if (bad !== null) return bad;
    }
  }
  return null;
}

/**
 * Refuses a JSON request body holding a string that is not well-formed Unicode, in any field of any
 * route (issue #14 point 6): stored, such a string breaks every JSON reader of the resource later
 * (`GET /v1/monitors` fails for strict parsers). 400 naming the field. Malformed JSON passes on to
 * the route's validator, which answers it as before. Hono caches the body, so the route reads it again for free.
 * @throws AppError 400 `validation.invalid`: `<field>: must be well-formed Unicode (no unpaired surrogates)`
 */
export const wellFormedJson: MiddlewareHandler = async (c, next) => {
  const method = c.req.method;
  if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && /json/i.test(c.req.header('content-type') ?? '')) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return next();
    }
    const bad = firstIllFormed(body);
    if (bad !== null) throw invalid(bad, 'must be well-formed Unicode (no unpaired surrogates)');
  }
  return next();
};
