import { JSONPath } from 'jsonpath-plus';
import type { HttpAssertion } from './index.ts';
import { jsonQueryFailure } from './json-query.ts';

/** What assertions look at: headers (lower-case names), the body text (capped), the elapsed ms. */
export interface AssertionInput {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  latencyMs: number;
}

const show = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v));

/**
 * The first failing assertion's reason for a person (`JSON $.status was "DOWN"`), or null when
 * all hold. JSONPath via jsonpath-plus with its safe evaluator; a path matching several values
 * holds when any of them does; JSONata (`json_query`) via ./json-query.ts. Syntax: docs/api.md "Check types".
 */
export async function failedAssertion(list: readonly HttpAssertion[], input: AssertionInput): Promise<string | null> {
  let json: unknown;
  let parsed = false;
  for (const a of list) {
    if (a.source === 'response_time') {
      if (!(input.latencyMs < (a.value as number))) return `Response time ${input.latencyMs} ms, limit ${a.value} ms`;
      continue;
    }
    if (a.source === 'body') {
      const v = String(a.value);
      if (a.op === 'contains' && !input.body.includes(v)) return `Body does not contain ${show(v)}`;
      if (a.op === 'not_contains' && input.body.includes(v)) return `Body contains ${show(v)}`;
      if (a.op === 'matches' && !new RegExp(v).test(input.body)) return `Body does not match /${v}/`;
      continue;
    }
    if (a.source === 'header') {
      const raw = input.headers[a.path!.toLowerCase()];
      const got = Array.isArray(raw) ? raw.join(', ') : raw;
      if (got === undefined) return `Header ${a.path} missing`;
      if (a.op !== 'exists' && !holds(a.op, got, a.value)) return `Header ${a.path} was ${show(got)}`;
      continue;
    }
    if (a.source === 'json_query') {
      const failure = await jsonQueryFailure(a.path!, a.op, a.value, input.body);
      if (failure !== null) return failure;
      continue;
    }
    if (!parsed) {
      parsed = true;
      try {
        json = JSON.parse(input.body);
      } catch {
        return `Body is not JSON (assertion on ${a.path})`;
      }
    }
    let found: unknown[];
    try {
      found = JSONPath({ path: a.path!, json: json as object, wrap: true, eval: 'safe' }) as unknown[];
    } catch (e) {
      return `JSON ${a.path}: ${(e as Error).message}`;
    }
    if (found.length === 0) return `JSON ${a.path} not found`;
    if (a.op === 'exists') continue;
    if (!found.some((v) => holds(a.op, v, a.value))) return `JSON ${a.path} was ${show(found.length === 1 ? found[0] : found)}`;
  }
  return null;
}

function holds(op: string, got: unknown, want: unknown): boolean {
  switch (op) {
    case 'equals':
      return JSON.stringify(got) === JSON.stringify(want);
    case 'not_equals':
      return JSON.stringify(got) !== JSON.stringify(want);
    case 'contains':
      return Array.isArray(got) ? got.some((x) => JSON.stringify(x) === JSON.stringify(want)) : typeof got === 'string' && got.includes(String(want));
    case 'matches':
      return new RegExp(String(want)).test(typeof got === 'string' ? got : JSON.stringify(got));
    case 'lt':
      return typeof got === 'number' && got < (want as number);
    case 'gt':
      return typeof got === 'number' && got > (want as number);
    default:
      return false;
  }
}
