import snmpLib from 'net-snmp';
import { isIP } from 'node:net';
import type { CheckOutcome } from '../../domain/check.ts';
import { describeNetworkError } from '../errors.ts';
import type { ProbeFactory } from '../types.ts';

/** The value of a varbind as text and, where it is one, as a number (Counter64 arrives as bytes). */
function valueOf(vb: snmpLib.Varbind): { text: string; number: number | null } {
  const T = snmpLib.ObjectType;
  const v = vb.value as unknown;
  if (vb.type === T.Counter64 && Buffer.isBuffer(v)) {
    const n = v.length === 0 ? 0n : BigInt(`0x${v.toString('hex')}`);
    return { text: n.toString(), number: Number(n) };
  }
  if (typeof v === 'number' || typeof v === 'bigint') return { text: String(v), number: Number(v) };
  if (Buffer.isBuffer(v)) {
    const text = v.toString('utf8');
    return { text, number: text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : null };
  }
  const text = String(v);
  return { text, number: text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : null };
}

const quote = (s: string) => JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);

/** Null when `value` meets `condition expected`, else why not. */
function compare(oid: string, value: { text: string; number: number | null }, condition: string, expected: string): string | null {
  const exp = Number(expected);
  const numeric = value.number !== null && expected.trim() !== '' && Number.isFinite(exp);
  let ok: boolean;
  if (condition === 'contains') ok = value.text.includes(expected);
  else if (condition === '==') ok = numeric ? value.number === exp : value.text === expected;
  else if (condition === '!=') ok = numeric ? value.number !== exp : value.text !== expected;
  else {
    if (value.number === null) return `${oid} was ${quote(value.text)}, not a number to compare ${condition} ${expected}`;
    ok = condition === '<' ? value.number < exp : condition === '<=' ? value.number <= exp : condition === '>' ? value.number > exp : value.number >= exp;
  }
  return ok ? null : `${oid} was ${quote(value.text)}, expected ${condition} ${quote(expected)}`;
}

/**
 * SNMP checks with the `net-snmp` package (this file, and so the package, is loaded on the first
 * snmp check): one UDP session per check (no retries: the check's timeout is the whole wait), sent
 * from `probe.source_address` when set. Reasons: `no answer within 2 s` (an agent ignores a wrong
 * v1/v2c community: silence is all it says), the agent's USM refusals for v3 (`Unknown User Name`,
 * `Wrong Digest (incorrect password, community or key)`, …: net-snmp's names of the report), its error status (`NoSuchName: <oid>` in v1),
 * `no such object <oid>` / `no such instance <oid>`, and the comparison
 * (`<oid> was "failed", expected == "ok"`).
 */
export const snmpProbe: ProbeFactory = (options) => ({
  async check(spec): Promise<CheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const s = spec.settings;
    const oid = String(s.snmp_oid ?? '').replace(/^\./, '');
    const host = spec.target.host;
    const base = {
      port: spec.target.port ?? 161,
      retries: 0,
      timeout: spec.timeoutSeconds * 1000,
      transport: (isIP(host) === 6 ? 'udp6' : 'udp4') as 'udp4' | 'udp6',
      ...(options.sourceAddress ? { sourceAddress: options.sourceAddress } : {}),
    };
    let session: snmpLib.Session;
    try {
      if (s.snmp_version === '3') {
        const level = snmpLib.SecurityLevel[s.snmp_security_level as 'noAuthNoPriv' | 'authNoPriv' | 'authPriv'];
        const user: snmpLib.User = {
          name: String(s.snmp_user ?? ''),
          level,
          ...(level !== snmpLib.SecurityLevel.noAuthNoPriv ? { authProtocol: snmpLib.AuthProtocols[s.snmp_auth_protocol as 'sha'], authKey: String(s.snmp_auth_key ?? '') } : {}),
          ...(level === snmpLib.SecurityLevel.authPriv ? { privProtocol: snmpLib.PrivProtocols[s.snmp_priv_protocol as 'aes'], privKey: String(s.snmp_priv_key ?? '') } : {}),
        };
        session = snmpLib.createV3Session(host, user, { ...base, version: snmpLib.Version3 });
      } else {
        session = snmpLib.createSession(host, String(s.snmp_community ?? 'public'), { ...base, version: s.snmp_version === '1' ? snmpLib.Version1 : snmpLib.Version2c });
      }
    } catch (e) {
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: `SNMP session failed: ${(e as Error).message}` };
    }
    try {
      const reason = await new Promise<string | null>((resolve) => {
        session.on('error', (e: unknown) => resolve(describeNetworkError(e, host, spec.timeoutSeconds)));
        session.get([oid], (error, varbinds) => {
          if (error) {
            if ((error as Error).name === 'RequestTimedOutError') return resolve(`no answer within ${spec.timeoutSeconds} s`);
            if ((error as { code?: unknown }).code !== undefined && typeof (error as { code?: unknown }).code === 'string') return resolve(describeNetworkError(error, host, spec.timeoutSeconds));
            return resolve(error.message);
          }
          const vb = varbinds?.[0];
          if (!vb) return resolve('the agent answered without a value');
          if (snmpLib.isVarbindError(vb)) {
            const T = snmpLib.ObjectType;
            return resolve(vb.type === T.NoSuchObject ? `no such object ${oid}` : vb.type === T.NoSuchInstance ? `no such instance ${oid}` : `end of MIB view at ${oid}`);
          }
          const condition = String(s.snmp_condition ?? 'any');
          resolve(condition === 'any' ? null : compare(oid, valueOf(vb), condition, String(s.snmp_expected ?? '')));
        });
      });
      return { ok: reason === null, latencyMs: latency(), statusCode: 0, reason };
    } catch (e) {
      return { ok: false, latencyMs: latency(), statusCode: 0, reason: describeNetworkError(e, host, spec.timeoutSeconds) };
    } finally {
      session.close();
    }
  },
  async close() {},
});
