import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { HealthcheckBody, dueAt, pingUrl } from '../../domain/healthcheck.ts';
import type { HttpDeps } from '../context.ts';
import { HealthcheckFormPage, HealthcheckPage, healthcheckFormValues } from '../../../views/console/healthcheck.tsx';
import type { FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formErrors, formOf, numberish, parseWith, text } from './forms.ts';
import { consoleActor } from '../audit-actor.ts';

/** The healthcheck form as the API's JSON body: an empty period means cron mode, and the reverse. */
export function healthcheckJson(f: FormValues): Record<string, unknown> {
  const cron = text(f, 'cron').trim();
  const period = text(f, 'period_value').trim();
  const simple = cron === '' || period !== '';
  return {
    name: text(f, 'name'),
    period_value: simple && period !== '' ? numberish(period) : null,
    period_type: simple && period !== '' ? text(f, 'period_type') : null,
    cron: cron === '' ? null : cron,
    timezone: text(f, 'timezone').trim() || 'UTC',
    grace_period_value: numberish(text(f, 'grace_period_value')),
    grace_period_type: text(f, 'grace_period_type'),
    escalation_policy: text(f, 'escalation_policy') || null,
  };
}

/** Healthcheck page and create form, pause/resume/delete: the same schema and use cases as /v1/healthchecks. */
export function healthcheckRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  // Stored policies (issue 32), read before the page renders.
  const policies = async () => (await core.escalationPolicies.list()).map((p) => ({ uuid: p.uuid, name: p.name }));
  const form = async (c: ConsoleContext, values: FormValues, e?: unknown, uuid?: string) =>
    page(c, HealthcheckFormPage({ s: shellOf(c, '/healthchecks'), values, errors: e === undefined ? undefined : formErrors(e), policies: await policies(), ...(uuid ? { uuid } : {}) }), e === undefined ? 200 : errorStatus(e));
  const found = async (uuid: string) => {
    try {
      return await core.healthchecks.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };

  app.get('/healthchecks/new', (c) => form(c, {}));
  app.post('/healthchecks', async (c) => {
    const f = await formOf(c);
    try {
      const h = await core.healthchecks.create(parseWith(HealthcheckBody, healthcheckJson(f)), consoleActor(c.var.session!));
      return c.redirect(`/healthchecks/${h.uuid}`, 303);
    } catch (e) {
      return form(c, f, e);
    }
  });
  app.get('/healthchecks/:uuid', async (c) => {
    const h = await found(c.req.param('uuid'));
    if (!h) return c.notFound();
    // The data first, then the page rendered synchronously.
    const pings = await core.healthchecks.pings(h.uuid, 100);
    const outages = await core.consoleView.healthcheckOutages(h, 20);
    return page(c, HealthcheckPage({ s: shellOf(c, '/healthchecks'), h, pingUrl: pingUrl(core.config.public_url, h.uuid), dueAt: dueAt(h), pings, outages, now: clock.now() }));
  });
  app.get('/healthchecks/:uuid/edit', async (c) => {
    const h = await found(c.req.param('uuid'));
    return h ? form(c, healthcheckFormValues(h), undefined, h.uuid) : c.notFound();
  });
  app.post('/healthchecks/:uuid', async (c) => {
    const h = await found(c.req.param('uuid'));
    if (!h) return c.notFound();
    const f = await formOf(c);
    try {
      await core.healthchecks.update(h.uuid, parseWith(HealthcheckBody, healthcheckJson(f)), consoleActor(c.var.session!));
      return c.redirect(`/healthchecks/${h.uuid}`, 303);
    } catch (e) {
      return form(c, f, e, h.uuid);
    }
  });
  for (const action of ['pause', 'resume'] as const) {
    app.post(`/healthchecks/:uuid/${action}`, async (c) => {
      const h = await found(c.req.param('uuid'));
      if (!h) return c.notFound();
      await core.healthchecks[action](h.uuid, consoleActor(c.var.session!));
      return c.redirect(`/healthchecks/${h.uuid}`, 303);
    });
  }
  // Delete (after its confirmation): routes-delete.ts.
}
