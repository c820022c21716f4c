import type { Hono } from 'hono';
import { CHANNEL_TYPES } from '../../domain/channels/index.ts';
import type { Integration } from '../../domain/integration.ts';
import { AppError } from '../../lib/errors.ts';
import type { HttpDeps } from '../context.ts';
import { DeleteIntegrationPage, IntegrationPage, IntegrationsPage, NewIntegrationPage, PickKindPage, type IntegrationRow, type TestAnswerView } from '../../../views/console/integrations.tsx';
import type { FormErrors, FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { errorStatus, formOf, text } from './forms.ts';
import { integrationFormErrors, integrationValues, kindFields, kindOf, newIntegrationValues, settingsJson, settingsPatch } from './integration-form.ts';
import { consoleActor } from '../audit-actor.ts';

/** Flash messages after a redirect, by the `done` code of the URL (never text from the URL itself). */
export const DONE_MESSAGES: Record<string, string> = {
  created: 'Integration added. Send a test to check that it reaches you.',
  saved: 'Saved.',
  enabled: 'Enabled: alerts are sent to it again.',
  disabled: 'Disabled: alerts to it are not sent (they fail at once with "disabled").',
  deleted: 'Integration deleted.',
};

const row = (i: Integration): IntegrationRow & { createdAt: number; updatedAt: number } => ({
  uuid: i.uuid,
  name: i.name,
  kind: i.kind,
  enabled: i.enabled,
  provisioned: i.provisioned,
  lastTestAt: i.lastTestAt,
  lastTestResult: i.lastTestResult,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

/**
 * The Integrations pages (issue 32 point 3): list, add (pick a kind, then its form generated from the
 * registry's schema), edit, "Send test" with the provider's answer, enable/disable, delete after a
 * confirmation listing the policies that alert it. The same core use cases as /v1/integrations, with
 * the signed-in person as the audit actor. Plain forms that post and redirect (flash by `?done=`);
 * htmx (hx-boost on every page) makes them load without a full reload when JavaScript runs.
 * Provisioned integrations (config.yaml) are shown read-only; core refuses their changes (409).
 */
export function integrationRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core, clock } = deps;
  const found = async (uuid: string): Promise<Integration | null> => {
    try {
      return await core.integrations.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };
  const show = async (c: ConsoleContext, i: Integration, extra: { values?: FormValues; errors?: FormErrors; test?: TestAnswerView } = {}, status: 200 | 400 | 403 | 404 | 409 | 429 = 200) =>
    page(
      c,
      IntegrationPage({
        s: shellOf(c, '/integrations'),
        i: row(i),
        fields: kindFields(i.kind),
        values: extra.values ?? integrationValues(i),
        usedBy: await core.integrations.usedBy(i.uuid),
        errors: extra.errors,
        notice: DONE_MESSAGES[c.req.query('done') ?? ''],
        test: extra.test,
      }),
      status,
    );
  const adminOnly = (c: ConsoleContext) => {
    if (c.var.session!.account.role !== 'admin') throw new AppError(403, 'auth.admin_only', 'only admins send test alerts');
  };

  app.get('/integrations', async (c) => {
    const rows = (await core.integrations.list()).map(row);
    return page(c, IntegrationsPage({ s: shellOf(c, '/integrations'), rows, now: clock.now(), notice: DONE_MESSAGES[c.req.query('done') ?? ''] }));
  });

  app.get('/integrations/new', (c) => {
    const kind = kindOf(c.req.query('kind'));
    if (!kind) return page(c, PickKindPage({ s: shellOf(c, '/integrations'), kinds: CHANNEL_TYPES }));
    return page(c, NewIntegrationPage({ s: shellOf(c, '/integrations'), kind, fields: kindFields(kind), values: newIntegrationValues(kind) }));
  });

  app.post('/integrations', async (c) => {
    const f = await formOf(c);
    const kind = kindOf(text(f, 'kind'));
    if (!kind) return page(c, PickKindPage({ s: shellOf(c, '/integrations'), kinds: CHANNEL_TYPES }), 400);
    try {
      const i = await core.integrations.create({ name: text(f, 'name'), kind, enabled: f.enabled !== undefined, settings: settingsJson(kind, f) }, consoleActor(c.var.session!));
      return c.redirect(`/integrations/${i.uuid}?done=created`, 303);
    } catch (e) {
      const errors = integrationFormErrors(e, kind);
      return page(c, NewIntegrationPage({ s: shellOf(c, '/integrations'), kind, fields: kindFields(kind), values: f, errors }), errorStatus(e));
    }
  });

  app.get('/integrations/:uuid', async (c) => {
    const i = await found(c.req.param('uuid'));
    return i ? show(c, i) : c.notFound();
  });

  app.post('/integrations/:uuid', async (c) => {
    const i = await found(c.req.param('uuid'));
    if (!i) return c.notFound();
    const f = await formOf(c);
    try {
      const settings = settingsPatch(settingsJson(i.kind, f), i.settings);
      await core.integrations.update(i.uuid, { name: text(f, 'name'), enabled: f.enabled !== undefined, settings }, consoleActor(c.var.session!));
      return c.redirect(`/integrations/${i.uuid}?done=saved`, 303);
    } catch (e) {
      return show(c, i, { values: { ...f, kind: i.kind }, errors: integrationFormErrors(e, i.kind) }, errorStatus(e));
    }
  });

  // A test really goes out (pages someone, posts in a shared channel): admins only, as on Settings (issue #30).
  app.post('/integrations/:uuid/test', async (c) => {
    adminOnly(c);
    const i = await found(c.req.param('uuid'));
    if (!i) return c.notFound();
    const r = await core.integrations.test(i.uuid, consoleActor(c.var.session!));
    // The page is read again: it shows the recorded last test next to the provider's answer.
    return show(c, (await found(i.uuid)) ?? i, { test: { ok: r.ok, answers: r.answers, error: r.error } });
  });
  // A reload of the answer above (its URL stays in the address bar): the integration's page.
  app.get('/integrations/:uuid/test', (c) => c.redirect(`/integrations/${c.req.param('uuid')}`, 303));

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/integrations/:uuid/${action}`, async (c) => {
      const i = await found(c.req.param('uuid'));
      if (!i) return c.notFound();
      try {
        await core.integrations.update(i.uuid, { enabled: action === 'enable' }, consoleActor(c.var.session!));
      } catch (e) {
        return show(c, i, { errors: integrationFormErrors(e, i.kind) }, errorStatus(e));
      }
      return c.redirect(`/integrations/${i.uuid}?done=${action}d`, 303);
    });
  }

  app.get('/integrations/:uuid/delete', async (c) => {
    const i = await found(c.req.param('uuid'));
    if (!i) return c.notFound();
    return page(c, DeleteIntegrationPage({ s: shellOf(c, '/integrations'), i, usedBy: await core.integrations.usedBy(i.uuid) }));
  });

  app.post('/integrations/:uuid/delete', async (c) => {
    const i = await found(c.req.param('uuid'));
    if (!i) return c.notFound();
    try {
      await core.integrations.delete(i.uuid, consoleActor(c.var.session!));
    } catch (e) {
      const errors = integrationFormErrors(e, i.kind);
      return page(c, DeleteIntegrationPage({ s: shellOf(c, '/integrations'), i, usedBy: await core.integrations.usedBy(i.uuid), errors }), errorStatus(e));
    }
    return c.redirect('/integrations?done=deleted', 303);
  });
}
