import assert from 'node:assert/strict';

/**
 * The published response types of the hosted service's clients, transcribed by hand (our own code,
 * not theirs) from develeap/hyperping-go (models_*.go, openapi.yaml) and the Python SDK `hyperping`
 * (develeap/hyperping-python, src/hyperping/models/*.py), and a checker that tells whether a JSON
 * value would decode into them.
 *
 * Decoding rules each spec follows:
 * - Go (`encoding/json`): a field of the wrong JSON type fails the whole decode (a string into an
 *   `int`, an object into a `string`, a float into an `int`); `null` into a non-pointer leaves the
 *   zero value and is not an error, but we mark those `nullable` explicitly so that every `null`
 *   Pharos sends is a decision written here. Missing fields decode silently to zero values, so each
 *   field the client reads is `required` unless Pharos documents that it leaves it out (`optional`).
 * - Python (pydantic v2, lax mode): a field without a default must be present and not null; `str`
 *   does not accept numbers, `int` does not accept non-integral floats; `datetime` accepts ISO 8601.
 */
export type Spec =
  | { k: 'string' | 'int' | 'number' | 'bool' | 'datetime' | 'flexstring' | 'any' }
  | { k: 'nullable'; of: Spec }
  | { k: 'optional'; of: Spec }
  | { k: 'array'; of: Spec }
  | { k: 'map'; of: Spec }
  | { k: 'object'; fields: Record<string, Spec> };

export const str: Spec = { k: 'string' };
export const int: Spec = { k: 'int' };
export const num: Spec = { k: 'number' };
export const bool: Spec = { k: 'bool' };
/** An ISO 8601 date-time string. */
export const date: Spec = { k: 'datetime' };
/** Go's FlexibleString: a string or a number. */
export const flex: Spec = { k: 'flexstring' };
export const any: Spec = { k: 'any' };
export const nullable = (of: Spec): Spec => ({ k: 'nullable', of });
/** May be absent (a Go `omitempty` the client tolerates missing, or a pydantic field with a default). */
export const optional = (of: Spec): Spec => ({ k: 'optional', of });
export const arr = (of: Spec): Spec => ({ k: 'array', of });
/** `map[string]T` / `dict[str, T]`. */
export const map = (of: Spec = str): Spec => ({ k: 'map', of });
export const obj = (fields: Record<string, Spec>): Spec => ({ k: 'object', fields });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Every mismatch between `value` and `spec`, as `path: problem` lines (empty when it decodes). */
export function mismatches(value: unknown, spec: Spec, path = '$'): string[] {
  const bad = (what: string) => [`${path}: expected ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  switch (spec.k) {
    case 'any':
      return [];
    case 'optional':
      return value === undefined ? [] : mismatches(value, spec.of, path);
    case 'nullable':
      return value === null ? [] : mismatches(value, spec.of, path);
    default:
      if (value === undefined) return [`${path}: missing`];
      if (value === null) return [`${path}: null where the client's type is not nullable`];
  }
  switch (spec.k) {
    case 'string':
      return typeof value === 'string' ? [] : bad('a string');
    case 'int':
      return Number.isInteger(value) ? [] : bad('an integer');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : bad('a number');
    case 'bool':
      return typeof value === 'boolean' ? [] : bad('a boolean');
    case 'datetime':
      return typeof value === 'string' && ISO.test(value) && !Number.isNaN(Date.parse(value)) ? [] : bad('an ISO 8601 date-time');
    case 'flexstring':
      return typeof value === 'string' || typeof value === 'number' ? [] : bad('a string or a number');
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => mismatches(v, spec.of, `${path}[${i}]`)) : bad('an array');
    case 'map':
      return typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as object).flatMap(([k, v]) => mismatches(v, spec.of, `${path}.${k}`)) : bad('an object');
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) return bad('an object');
      return Object.entries(spec.fields).flatMap(([k, s]) => mismatches((value as Record<string, unknown>)[k], s, `${path}.${k}`));
  }
}

/** Asserts that `value` decodes into `spec` (the `label` names client and type in the failure). */
export function assertDecodes(value: unknown, spec: Spec, label: string): void {
  assert.deepEqual(mismatches(value, spec), [], `${label} cannot decode Pharos's answer`);
}

/** The checker itself can fail: a wrong type, a missing field and a stray null are all caught. */
export function selfCheck(): void {
  const s = obj({ a: int, b: nullable(str), c: optional(bool), d: arr(obj({ e: date })) });
  assert.deepEqual(mismatches({ a: 1, b: null, d: [{ e: '2026-01-01T00:00:00.000Z' }] }, s), []);
  assert.equal(mismatches({ a: '1', b: null, d: [] }, s).length, 1, 'a string where an int is read');
  assert.equal(mismatches({ b: 'x', d: [] }, s).length, 1, 'a missing field');
  assert.equal(mismatches({ a: 1.5, b: 'x', c: null, d: [{ e: 'yesterday' }] }, s).length, 3, 'float, stray null, bad date');
}
