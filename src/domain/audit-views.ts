import { createHash } from 'node:crypto';
import { maskMonitor } from '../protocols/secrets.ts';
import { auditDiff, type AuditDiff } from './audit.ts';
import type { Healthcheck } from './healthcheck.ts';
import { MASK } from './integration.ts';
import type { Monitor } from './monitor.ts';
import type { Statuspage } from './statuspage.ts';
import type { SsoConnection } from './sso-connection.ts';
import type { Account, Invitation, TokenInfo } from './user.ts';

/**
 * What the audit log (issue 32 point 5) records of each resource family besides integrations and
 * escalation policies: the fields a person sets (no ids, state or timestamps), and the diff of two
 * such views with their secrets masked the way readers see them (issue 30: a monitor's URL password
 * and secret settings through `maskMonitor`, a status page's password hash as `***`).
 */

type View = Record<string, unknown>;

/**
 * The diff of two plaintext views (null: created / deleted), every value shown as `mask` shows it: the
 * fields are found on the plaintext (a secret changed under an unchanged mask is still listed, as
 * `***` → `***`), the values are read from the masked views only, so no plaintext secret is returned.
 */
export function maskedAuditDiff<V extends View>(before: V | null, after: V | null, mask: (v: V) => View): AuditDiff {
  const mb = before && mask(before);
  const ma = after && mask(after);
  const shown = auditDiff(mb, ma);
  const plain = auditDiff(before, after);
  const leavesBefore = auditDiff(null, mb);
  const leavesAfter = auditDiff(null, ma);
  for (const key of Object.keys(plain)) {
    if (key in shown) continue;
    const entry: { before?: unknown; after?: unknown } = {};
    if (key in leavesBefore) entry.before = leavesBefore[key]!.after;
    if (key in leavesAfter) entry.after = leavesAfter[key]!.after;
    shown[key] = entry;
  }
  return shown;
}

/** A monitor's audit view: its settings (plaintext; diff it with {@link monitorAuditDiff}). */
export function monitorAuditView(m: Monitor): View {
  return {
    name: m.name,
    url: m.url,
    protocol: m.protocol,
    checkFrequencySeconds: m.checkFrequencySeconds,
    regions: m.regions,
    paused: m.paused,
    port: m.port,
    alertsWaitMinutes: m.alertsWaitMinutes,
    escalationPolicyUuid: m.escalationPolicyUuid,
    timeoutSeconds: m.timeoutSeconds,
    publicBadges: m.publicBadges,
    tags: m.tags.map((t) => (t.value === '' ? t.name : `${t.name}:${t.value}`)),
    group: m.group,
    settings: m.settings as unknown as Record<string, unknown>,
  };
}

/** The masked diff of two monitors (null: created / deleted): URL password, header values and secret settings `***`. */
export function monitorAuditDiff(before: Monitor | null, after: Monitor | null): AuditDiff {
  const mask = (v: View): View => maskMonitor(v as { protocol: Monitor['protocol']; url: string; settings: Record<string, unknown> });
  return maskedAuditDiff(before && monitorAuditView(before), after && monitorAuditView(after), mask);
}

/** The diff of two healthchecks (no secrets among the fields a person sets; the `tok_` ping token is not recorded). */
export function healthcheckAuditDiff(before: Healthcheck | null, after: Healthcheck | null): AuditDiff {
  const view = (h: Healthcheck): View => ({
    name: h.name,
    periodValue: h.periodValue,
    periodType: h.periodType,
    cron: h.cron,
    timezone: h.timezone,
    graceValue: h.graceValue,
    graceType: h.graceType,
    escalationPolicyUuid: h.escalationPolicyUuid,
    paused: h.paused,
  });
  return auditDiff(before && view(before), after && view(after));
}

/** The masked diff of two status pages: the password (stored as a hash) is `***` when set. */
export function statuspageAuditDiff(before: Statuspage | null, after: Statuspage | null): AuditDiff {
  const view = (s: Statuspage): View => ({ name: s.name, subdomain: s.subdomain, hostname: s.hostname, password: s.passwordHash, settings: s.settings, sections: s.sections });
  return maskedAuditDiff(before && view(before), after && view(after), (v) => ({ ...v, password: v.password === null ? null : MASK }));
}

/** The diff of two accounts (people of the console); `passwordChanged` adds `password: *** → ***`. */
export function userAuditDiff(before: Account | null, after: Account | null, passwordChanged = false): AuditDiff {
  const view = (a: Account): View => ({ email: a.email, name: a.name, role: a.role, disabled: a.disabledAt !== null, totp: a.totp });
  const diff = auditDiff(before && view(before), after && view(after));
  if (passwordChanged) diff.password = { ...(before?.hasPassword ? { before: MASK } : {}), after: MASK };
  return diff;
}

/** The diff of two API tokens' listings (the secret is never part of it: only its hash is stored). */
export function tokenAuditDiff(before: TokenInfo | null, after: TokenInfo | null): AuditDiff {
  const view = (t: TokenInfo): View => ({ name: t.name, scope: t.scope, regions: t.regions, user: t.user.email, revoked: t.revokedAt !== null });
  return auditDiff(before && view(before), after && view(after));
}

/**
 * The diff of two SAML SSO connections (resource type `settings`). A connection holds no secret (the
 * IdP's certificate is public; Pharos signs nothing with a key of its own here), but a PEM is long:
 * the certificate is recorded as its SHA-256 fingerprint (`sha256:<hex>` of the DER), which tells
 * which certificate was set as well as the PEM would.
 */
export function ssoConnectionAuditDiff(before: SsoConnection | null, after: SsoConnection | null): AuditDiff {
  const view = (c: SsoConnection): View => ({ name: c.name, provider: c.provider, entryPoint: c.entryPoint, issuer: c.issuer, idpCertificate: certificateFingerprint(c.idpCertificate) });
  return auditDiff(before && view(before), after && view(after));
}

/** `sha256:<hex>` of a PEM certificate's DER bytes (the base64 between its armour lines). */
export function certificateFingerprint(pem: string): string {
  const der = Buffer.from(pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, ''), 'base64');
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** The diff of two invitations of one email (resource type `user`, named by the email): its role and who invited. */
export function invitationAuditDiff(before: Invitation | null, after: Invitation | null): AuditDiff {
  const view = (i: Invitation): View => ({ invitation: { role: i.role, invitedBy: i.invitedBy } });
  return auditDiff(before && view(before), after && view(after));
}
