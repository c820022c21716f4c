import type { Config } from './schema.ts';

/**
 * Config keys a running `pharos serve` applies on SIGHUP (channels and escalation policies are
 * provisioned again as integrations and policies, issue 32); every other change needs a restart.
 */
export const LIVE_KEYS = ['log_level', 'channels', 'escalation_policies'] as const;

/**
 * The dotted keys whose values differ between two validated configs (`probe.region`,
 * `channels`, `status_pages.subscriptions.max_per_page`). Arrays are compared whole and named by
 * their key; values are never returned, so the result can be logged (config values hold secrets).
 */
export function configChanges(before: Readonly<Config>, after: Readonly<Config>): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, key: string) => {
    if (isRecord(a) && isRecord(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[k], b[k], key ? `${key}.${k}` : k);
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(key);
  };
  walk(before, after, '');
  return out.sort();
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
