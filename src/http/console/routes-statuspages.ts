import { createHash } from 'node:crypto';
import { ID_PREFIX, randomBase62 } from '../../domain/ids.ts';
import type { Hono } from 'hono';
import { StatuspageBody, StatuspagePatchBody, type Statuspage } from '../../domain/statuspage.ts';
import type { HttpDeps } from '../context.ts';
import { SECTION_SLOTS, StatuspagesPage } from '../../../views/console/statuspages.tsx';
import { StatuspageEditPage } from '../../../views/console/statuspage-edit.tsx';
import { AppError } from '../../lib/errors.ts';
import { editSections, settingsBody } from './page-editor.ts';
import { previewRoutes } from './page-preview.ts';
import type { FormValues } from '../../../views/console/model.ts';
import { page, shellOf, type ConsoleContext, type ConsoleEnv } from './context.ts';
import { pickerModel, pickItems, pickQueryValues } from './picker.ts';
import type { PickerModel } from '../../../views/console/picker.tsx';
import { errorStatus, formErrors, formOf, parseWith, text } from './forms.ts';
import { consoleActor } from '../audit-actor.ts';

/** The status page form as the API's JSON body: each named section with the services ticked in it. */
export function statuspageJson(f: FormValues): Record<string, unknown> {
  const sections = [];
  for (let i = 0; i < SECTION_SLOTS; i++) {
    const name = text(f, `section_${i}_name`).trim();
    const picked = f[`section_${i}_services`];
    const uuids = picked === undefined ? [] : Array.isArray(picked) ? picked : [picked];
    if (name) sections.push({ name, services: uuids.map((monitor_uuid) => ({ monitor_uuid })) });
  }
  return { name: text(f, 'name'), ...(text(f, 'subdomain').trim() ? { subdomain: text(f, 'subdomain').trim() } : {}), sections };
}

const FORM_KEY = /^[0-9A-Za-z]{22}$/;

/**
 * The uuid a create form's page gets: derived from the signed-in person and the form's key (a
 * random value rendered into each visit of the form), so the same form posted twice names the same
 * page and the second post creates nothing. Undefined without a key (a form from before keys).
 */
export function formPageUuid(accountUuid: string, formKey: string): string | undefined {
  if (!FORM_KEY.test(formKey)) return undefined;
  const digest = createHash('sha256').update(`statuspage-form|${accountUuid}|${formKey}`).digest();
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return `${ID_PREFIX.statuspage}${Array.from(digest.subarray(0, 22), (b) => ALPHABET[b % 62]).join('')}`;
}

/** Status pages: list with view links, create with sections (the same schema and use case as /v2/statuspages). Data is loaded with awaits first, then rendered. */
export function statuspageRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  const urlOf = (p: Statuspage) => (p.hostname ? `https://${p.hostname}` : `${core.config.public_url.replace(/\/$/, '')}/status/${p.subdomain}`);
  const checks = async () => [
    ...(await core.monitors.list()).map((m) => ({ uuid: m.uuid, name: m.name, kind: m.protocol })),
    ...(await core.healthchecks.list()).map((h) => ({ uuid: h.uuid, name: h.name, kind: 'healthcheck' })),
  ];
  const choices = async () => [...(await checks()), ...(await core.incidents.components.list()).map((x) => ({ uuid: x.uuid, name: x.name, kind: 'component' }))];
  const found = async (uuid: string) => {
    try {
      return await core.statuspages.get(uuid);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return null;
      throw e;
    }
  };
  const edit = async (c: ConsoleContext, p: Statuspage, e?: unknown, draft?: FormValues, pickValues: FormValues = {}) => {
    const services = await choices();
    // A searchable picker per "add" form (each section, each group) instead of a select of every service (issue 33 point 5).
    const items = await pickItems(core, 'services');
    const pickers = new Map<string, PickerModel>();
    p.sections.forEach((sec, i) => {
      pickers.set(`s${i}`, pickerModel(pickValues, 'uuid', items, `s${i}`));
      sec.services.forEach((sv, j) => sv.is_group && pickers.set(`s${i}g${j}`, pickerModel(pickValues, 'uuid', items, `s${i}g${j}`)));
    });
    const connections = (await core.identity.connections.list()).map((x) => ({ uuid: x.uuid, name: x.name }));
    return page(c, StatuspageEditPage({ s: shellOf(c, '/statuspages'), page: p, url: urlOf(p), services, connections, draft, errors: e === undefined ? undefined : formErrors(e), pickers }), e === undefined ? 200 : errorStatus(e));
  };
  const show = async (c: ConsoleContext, values: FormValues = {}, e?: unknown) => {
    const services = await checks();
    const pages = (await core.statuspages.list(0)).statuspages;
    const formKey = FORM_KEY.test(text(values, 'form_key')) ? text(values, 'form_key') : randomBase62(22);
    // One searchable picker per section instead of a checkbox per service (issue 33 point 5).
    const items = await pickItems(core, 'checks');
    const pickers = Array.from({ length: SECTION_SLOTS }, (_, i) => pickerModel(values, `section_${i}_services`, items));
    return page(c, StatuspagesPage({ s: shellOf(c, '/statuspages'), pages, urlOf, services, values, formKey, errors: e === undefined ? undefined : formErrors(e), pickers }), e === undefined ? 200 : errorStatus(e));
  };
  app.get('/statuspages', (c) => show(c, pickQueryValues(c)));
  app.post('/statuspages', async (c) => {
    const f = await formOf(c);
    const uuid = formPageUuid(c.var.session!.account.uuid, text(f, 'form_key'));
    try {
      const created = await core.statuspages.create(parseWith(StatuspageBody, statuspageJson(f)), consoleActor(c.var.session!), uuid);
      return c.redirect(`/statuspages/${created.uuid}`, 303);
    } catch (e) {
      // Two posts of one form at once: the one that lost the race finds the page the other stored.
      const won = uuid === undefined ? null : await found(uuid);
      if (won) return c.redirect(`/statuspages/${won.uuid}`, 303);
      return show(c, f, e);
    }
  });
  app.get('/statuspages/:uuid', async (c) => {
    const p = await found(c.req.param('uuid'));
    return p ? edit(c, p, undefined, undefined, pickQueryValues(c)) : c.notFound();
  });
  app.post('/statuspages/:uuid/sections', async (c) => {
    const p = await found(c.req.param('uuid'));
    if (!p) return c.notFound();
    try {
      await core.statuspages.update(p.uuid, parseWith(StatuspagePatchBody, { sections: editSections(p.sections, await formOf(c)) }), consoleActor(c.var.session!));
      return c.redirect(`/statuspages/${p.uuid}`, 303);
    } catch (e) {
      return edit(c, p, e);
    }
  });
  app.post('/statuspages/:uuid', async (c) => {
    const p = await found(c.req.param('uuid'));
    if (!p) return c.notFound();
    const f = await formOf(c);
    try {
      // The API's PUT schema and use case: one transaction, audit-logged like an API edit.
      await core.statuspages.update(p.uuid, parseWith(StatuspagePatchBody, settingsBody(f)), consoleActor(c.var.session!));
      return c.redirect(`/statuspages/${p.uuid}`, 303);
    } catch (e) {
      return edit(c, p, e, f);
    }
  });
  previewRoutes(app, deps);
  // Delete (after its confirmation): routes-delete.ts.
}
