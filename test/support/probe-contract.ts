import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckOutcome } from '../../src/domain/check.ts';
import { monitorDefaults, type MonitorSettings, type Protocol } from '../../src/domain/monitor.ts';
import { checkSpec } from '../../src/domain/probe.ts';
import { PROTOCOL_DEFINITIONS, type CheckSpec, type Probe } from '../../src/protocols/index.ts';

type Over = Partial<Omit<MonitorSettings, 'settings'>> & Pick<MonitorSettings, 'url'> & Record<string, unknown>;

/**
 * A check spec as the scheduler would build it: the common fields (`url`, `protocol` (default
 * http), `port`, `timeoutSeconds`) plus the protocol's settings given flat by API field name over
 * the protocol's defaults, validated like a stored monitor (target parsed by the definition).
 */
export function specOf({ url, protocol = 'http', port = null, timeoutSeconds = 10, ...settings }: Over): CheckSpec {
  const d = monitorDefaults('london');
  const s = { ...d, name: 'p', url, protocol, port, timeoutSeconds, settings: { ...(PROTOCOL_DEFINITIONS[protocol].defaults as Record<string, unknown>), ...settings } };
  return checkSpec({ ...s, id: 1, uuid: 'mon_x', status: 'up', sslExpirationDays: null, degraded: false, createdAt: 0, updatedAt: 0 });
}

/** The outcome fields a person reads. */
export const pick = (o: CheckOutcome) => ({ ok: o.ok, statusCode: o.statusCode, reason: o.reason });

/**
 * The probe contract every protocol passes (house rule 1): against a passing and a failing target
 * its check resolves (never throws) with `{ok, latencyMs ≥ 0 integer, statusCode integer, reason}`
 * where `reason` is null exactly when ok. Each protocol's test file calls this once; a test in
 * test/unit/engine/probes.test.ts checks that every registered protocol does.
 */
export function probeContract(protocol: Protocol, probe: () => Probe, fixture: { pass: () => Promise<CheckSpec>; fail: () => Promise<CheckSpec> }): void {
  const shape = (o: CheckOutcome) => {
    assert.equal(typeof o.ok, 'boolean');
    assert.ok(Number.isInteger(o.latencyMs) && o.latencyMs >= 0, `latencyMs ${o.latencyMs}`);
    assert.ok(Number.isInteger(o.statusCode));
    assert.equal(o.reason === null, o.ok, 'reason is null exactly when ok');
  };
  test(`contract: ${protocol} resolves with an outcome for a passing and a failing target`, async () => {
    const pass = await probe().check(await fixture.pass());
    shape(pass);
    assert.equal(pass.ok, true, pass.reason ?? '');
    const fail = await probe().check(await fixture.fail());
    shape(fail);
    assert.equal(fail.ok, false);
  });
}
