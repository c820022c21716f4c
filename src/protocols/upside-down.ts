import { z } from 'zod';
import type { CheckOutcome } from '../domain/check.ts';
import { isDescriptorExhaustionReason } from './descriptors.ts';

/**
 * Upside-down mode (issue 36; Uptime Kuma's `upsideDown`, which every Kuma monitor type has): the
 * check's verdict is turned around — the monitor is up while the check fails and down while it
 * passes ("this port must stay closed", "this page must stay unreachable from outside").
 *
 * It is a setting of every protocol: src/protocols/index.ts adds {@link UPSIDE_DOWN_FIELDS} to each
 * registered definition, so a protocol folder says nothing about it, and the engine's probe
 * wrapper (src/engine/probes/index.ts) applies {@link turnUpsideDown} to whatever the protocol's
 * probe returned — on the main and on `pharos agent` alike, since both build their probes there.
 */

/** `upside_down`: one schema object shared by every protocol (the registry requires a shared field to be one object). */
export const UPSIDE_DOWN_FIELD = z.boolean({ error: 'must be a boolean' }).meta({ description: 'up when the check fails, down when it passes (every protocol; default false)' });

/** The fields every protocol gains. */
export const UPSIDE_DOWN_FIELDS = { upside_down: UPSIDE_DOWN_FIELD };

/** Their defaults: off. */
export const UPSIDE_DOWN_DEFAULTS = { upside_down: false };

/**
 * The outcome as an upside-down monitor sees it. A passing check becomes a failure whose reason says
 * so (`Upside-down mode: the check passed (HTTP 200), so the monitor is down`; `(HTTP n)` only when
 * there was an HTTP status); a failing check becomes a pass that keeps the honest reason
 * (`Upside-down mode: the check failed (Connection refused), so the monitor is up`), stored with the
 * result like any reason. Pharos's own descriptor shortage (src/protocols/descriptors.ts) is left a
 * failure: it says nothing about the target, and the wheel retries such checks.
 */
export function turnUpsideDown(o: CheckOutcome): CheckOutcome {
  if (isDescriptorExhaustionReason(o.reason)) return o;
  if (o.ok) {
    const how = o.statusCode > 0 ? ` (HTTP ${o.statusCode})` : '';
    return { ...o, ok: false, degraded: undefined, reason: `Upside-down mode: the check passed${how}, so the monitor is down` };
  }
  return { ...o, ok: true, reason: `Upside-down mode: the check failed (${o.reason ?? 'no reason given'}), so the monitor is up` };
}

/** True when a check's settings ask for upside-down mode (stored settings from before it existed have no `upside_down`). */
export function isUpsideDown(settings: Record<string, unknown>): boolean {
  return settings.upside_down === true;
}
