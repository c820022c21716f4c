import Mustache from 'mustache';
import type { WebhookPayload } from './index.ts';

/**
 * The variables a webhook `body_template` sees: every field of the JSON payload (`event`,
 * `deliveryId`, `title`, `text`, `link`, `createdAt`, `outage.*`, `outage.monitor.*`,
 * `escalation.*`), plus the flags `isAlert`, `isRecovery`, `isAcknowledge`, `isNotice` for
 * sections (`{{#isAlert}}…{{/isAlert}}`). Plain data only: no functions, so no Mustache lambdas.
 */
export function templateView(payload: WebhookPayload): Record<string, unknown> {
  return bare({
    ...payload,
    isAlert: payload.event === 'outage.alert',
    isRecovery: payload.event === 'outage.recovery',
    isAcknowledge: payload.event === 'outage.acknowledged',
    isNotice: payload.event === 'pharos.notice',
  }) as Record<string, unknown>;
}

/**
 * A deep copy of plain data with null-prototype objects: Mustache looks names up with `in`, which
 * would otherwise reach `constructor` and other inherited members (and call them as lambdas).
 */
function bare(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bare);
  if (value === null || typeof value !== 'object') return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = bare(v);
  return out;
}

/** Escapes a value as the content of a JSON string (without the quotes). */
const jsonEscape = (value: unknown) => JSON.stringify(String(value)).slice(1, -1);

/**
 * Renders a body template with Mustache's logic-less engine (variables and sections; partials
 * are not given, so `{{> x}}` renders nothing). `{{var}}` is escaped for the body's content type —
 * as JSON string content for `…json` types, as HTML otherwise — and `{{{var}}}` is inserted as is.
 * Template syntax was checked when the config was loaded.
 */
export function renderTemplate(template: string, payload: WebhookPayload, contentType: string): string {
  const escape = /json/i.test(contentType) ? jsonEscape : (v: unknown) => Mustache.escape(String(v));
  return Mustache.render(template, templateView(payload), {}, { escape });
}
