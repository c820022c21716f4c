import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import { hostTarget } from '../target.ts';
import type { ProtocolDefinition } from '../types.ts';

/** The comparisons of the value read (Kuma's SNMP conditions, plus `any`: the agent answered with a value). */
export const SNMP_CONDITIONS = ['any', '==', '!=', '<', '<=', '>', '>=', 'contains'] as const;

const secret = (what: string) => z.string({ error: `must be ${what}` }).max(256, 'must be at most 256 characters');

const fields = {
  snmp_version: z.enum(['1', '2c', '3'], { error: 'must be one of 1, 2c, 3' }),
  snmp_oid: z.string({ error: 'must be a numeric OID such as 1.3.6.1.2.1.1.3.0' }).regex(/^\.?\d+(\.\d+)+$/, 'must be a numeric OID such as 1.3.6.1.2.1.1.3.0'),
  snmp_condition: z.enum(SNMP_CONDITIONS, { error: `must be one of ${SNMP_CONDITIONS.join(', ')}` }),
  snmp_expected: z.string({ error: 'must be a string or null' }).max(1024, 'must be at most 1024 characters').nullable(),
  snmp_community: secret('a community string'),
  snmp_user: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters'),
  snmp_security_level: z.enum(['noAuthNoPriv', 'authNoPriv', 'authPriv'], { error: 'must be one of noAuthNoPriv, authNoPriv, authPriv' }),
  snmp_auth_protocol: z.enum(['md5', 'sha', 'sha224', 'sha256', 'sha384', 'sha512'], { error: 'must be one of md5, sha, sha224, sha256, sha384, sha512' }),
  snmp_auth_key: secret('a string'),
  snmp_priv_protocol: z.enum(['des', 'aes', 'aes256b', 'aes256r'], { error: 'must be one of des, aes, aes256b, aes256r' }),
  snmp_priv_key: secret('a string'),
};

/**
 * snmp: one GET of `snmp_oid` from the agent at `url` (a host) on `port` (default 161, UDP), as
 * SNMP v1/v2c with `snmp_community` or v3 (USM) as `snmp_user` at `snmp_security_level` with the
 * auth/priv protocols and keys; up when the agent answers with a value that meets
 * `snmp_condition snmp_expected` (`any`: any value). `<`, `<=`, `>`, `>=` compare numbers; `==`
 * and `!=` compare numbers when both sides are numbers, else the text; `contains` the text.
 * Borrowed from Uptime Kuma's SNMP monitor (its conditions; Kuma lacks v3).
 */
export const snmp = {
  fields,
  defaults: {
    snmp_version: '2c' as '1' | '2c' | '3',
    snmp_oid: '1.3.6.1.2.1.1.3.0',
    snmp_condition: 'any' as (typeof SNMP_CONDITIONS)[number],
    snmp_expected: null as string | null,
    snmp_community: 'public',
    snmp_user: '',
    snmp_security_level: 'authPriv' as 'noAuthNoPriv' | 'authNoPriv' | 'authPriv',
    snmp_auth_protocol: 'sha' as 'md5' | 'sha' | 'sha224' | 'sha256' | 'sha384' | 'sha512',
    snmp_auth_key: '',
    snmp_priv_protocol: 'aes' as 'des' | 'aes' | 'aes256b' | 'aes256r',
    snmp_priv_key: '',
  },
  urlMeaning: 'the SNMP agent: a host name or IP (host:port or a URL also work); `port` defaults to 161 (UDP)',
  label: 'SNMP',
  target: (url, port) => hostTarget(url, port, 161),
  secrets: { snmp_community: 'value', snmp_auth_key: 'value', snmp_priv_key: 'value' },
  validate(s) {
    if (s.snmp_condition !== 'any' && (s.snmp_expected === null || s.snmp_expected === '')) throw invalid('snmp_expected', `is required with snmp_condition "${s.snmp_condition}"`);
    if (['<', '<=', '>', '>='].includes(s.snmp_condition) && !Number.isFinite(Number(s.snmp_expected))) throw invalid('snmp_expected', `must be a number with snmp_condition "${s.snmp_condition}"`);
    if (s.snmp_version !== '3') return;
    if (!s.snmp_user) throw invalid('snmp_user', 'is required for SNMP v3');
    // USM keys are at least 8 characters (RFC 3414 §11.2: net-snmp's agent refuses shorter passphrases).
    if (s.snmp_security_level !== 'noAuthNoPriv' && s.snmp_auth_key.length < 8) throw invalid('snmp_auth_key', `must be at least 8 characters for ${s.snmp_security_level}`);
    if (s.snmp_security_level === 'authPriv' && s.snmp_priv_key.length < 8) throw invalid('snmp_priv_key', 'must be at least 8 characters for authPriv');
  },
  loadProbe: async () => (await import('./probe.ts')).snmpProbe,
} satisfies ProtocolDefinition<typeof fields>;
