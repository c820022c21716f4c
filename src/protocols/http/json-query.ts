import { loadJsonata } from './index.ts';

/**
 * The `json_query` assertion (issue 36): Uptime Kuma 2.x's json-query monitor, whose expression is
 * JSONata (Kuma evaluates it with the `jsonata` package in `evaluateJsonQuery`, src/util.ts), so
 * imported monitors keep their expressions (`$count(services[status="up"])`, `version ~> $contains("1.2")`).
 * Same rules as Kuma's: the body is parsed as JSON (a body that is not JSON is the text itself), the
 * expression must give one value (not nothing, an array or an object), and that value is compared as
 * text with the expected value (`equals`, `not_equals`, `contains`) or as numbers (`lt`, `lte`, `gt`,
 * `gte`; Kuma's `<`, `<=`, `>`, `>=`). An evaluation is bounded ({@link LIMITS}): an expression that
 * loops or recurses without end fails the check instead of holding the event loop.
 */

/** Evaluation bounds: wall time, ms, and expression stack depth (jsonata's own guardrails). */
const LIMITS = { timeout: 200, stack: 500 } as const;

const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
};

/**
 * Why `expression` over `body` does not satisfy `op` `expected`, for a person
 * (`JSON query version was "1.1.0" (expected contains "1.2")`), or null when it holds.
 * Never throws: a bad expression or a runaway evaluation is the reason.
 */
export async function jsonQueryFailure(expression: string, op: string, expected: unknown, body: string): Promise<string | null> {
  let input: unknown;
  try {
    input = JSON.parse(body);
  } catch {
    input = body;
  }
  let value: unknown;
  try {
    const jsonata = await loadJsonata();
    value = await jsonata(expression, LIMITS).evaluate(input);
  } catch (e) {
    return `JSON query ${expression}: ${(e as { message?: string }).message ?? String(e)}`;
  }
  if (value === undefined || value === null) return `JSON query ${expression} found nothing`;
  if (typeof value === 'object' || typeof value === 'function') {
    return `JSON query ${expression} gave ${Array.isArray(value) ? 'an array' : 'an object'} ${shown(value)}, not one value (take one with [0], or use $count(), $sum(), $boolean())`;
  }
  if (holds(op, String(value), String(expected))) return null;
  return `JSON query ${expression} was ${shown(value)} (expected ${op} ${shown(expected)})`;
}

/** Kuma's comparison: as text, or as numbers for the ordering ops (text that is not a number never holds). */
function holds(op: string, value: string, expected: string): boolean {
  if (op === 'equals') return value === expected;
  if (op === 'not_equals') return value !== expected;
  if (op === 'contains') return value.includes(expected);
  const a = Number(value);
  const b = Number(expected);
  if (value.trim() === '' || !Number.isFinite(a) || !Number.isFinite(b)) return false;
  if (op === 'lt') return a < b;
  if (op === 'lte') return a <= b;
  if (op === 'gt') return a > b;
  if (op === 'gte') return a >= b;
  return false;
}
