import type { z } from 'zod';
import { ZodError } from 'zod';
import { AppError } from '../../lib/errors.ts';
import { fromZodError } from '../errors.ts';
import type { FormErrors, FormValues } from '../../../views/console/model.ts';
import type { ConsoleContext } from './context.ts';

/** The posted form as strings (repeated fields as arrays). */
export async function formOf(c: ConsoleContext): Promise<FormValues> {
  const body = await c.req.parseBody({ all: true });
  const out: FormValues = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

/** A single text field ('' when absent). */
export const text = (f: FormValues, name: string): string => {
  const v = f[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
};

/** A number typed in a form field: the number when the field holds one, else the text itself (so the API schema names the rule). */
export const numberish = (s: string): number | string => (/^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s);

/**
 * Validates form data with the API's own zod schema (one rule, one place) and returns the parsed
 * body, or throws the API's 400 naming the field.
 * @throws AppError 400 `validation.invalid`
 */
export function parseWith<T extends z.ZodType>(schema: T, json: unknown): z.infer<T> {
  const r = schema.safeParse(json);
  if (!r.success) throw fromZodError(r.error, 'json');
  return r.data;
}

/**
 * A refusal from the API's rules as what a form shows: the whole message, and per field the rule
 * (from the error's details or its `field: rule` message). Not a 4xx → rethrown.
 */
export function formErrors(e: unknown): FormErrors {
  if (e instanceof ZodError) e = fromZodError(e, 'json');
  if (!(e instanceof AppError) || e.status >= 500) throw e;
  const fields: Record<string, string> = {};
  for (const d of e.details ?? []) fields[d.path.split('.')[0]!] ??= d.message;
  const m = /^([a-z_]+)(?:\.[\w.]+)?: (.*)$/.exec(e.message);
  if (m && !fields[m[1]!]) fields[m[1]!] = m[2]!;
  return { message: e.message, fields };
}

/** Status of a form answered with its errors. */
export function errorStatus(e: unknown): 400 | 403 | 404 | 409 | 429 {
  const s = e instanceof AppError ? e.status : 400;
  return s === 403 || s === 404 || s === 409 || s === 429 ? s : 400;
}
