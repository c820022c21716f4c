import { PAGE_LANGUAGES, type PageSection, type PageService } from '../../domain/statuspage.ts';
import type { LocalizedText } from '../../domain/localized.ts';
import type { FormValues } from '../../../views/console/model.ts';
import { text } from './forms.ts';

/** A section as the API's body takes it back (services keep every field they had). */
type ServiceInput = Omit<PageService, 'monitor_uuid' | 'services' | 'name_i18n' | 'description_i18n' | 'description'> & {
  monitor_uuid?: string;
  name?: LocalizedText;
  description: string | LocalizedText | null;
  services: ServiceInput[];
};
type SectionInput = { name: string | LocalizedText; services: ServiceInput[] };
type Section = { name: string; name_i18n?: LocalizedText | null | undefined; services: PageService[] };

/** A stored service as the API's body takes it back: localized texts as their maps (kept as given), a group without a monitor sent without one. */
const asInput = (sv: PageService): ServiceInput => {
  const { name_i18n, description_i18n, monitor_uuid, services, ...rest } = sv;
  return {
    ...rest,
    ...(sv.is_group && monitor_uuid === '' ? {} : { monitor_uuid }),
    ...(name_i18n ? { name: name_i18n } : {}),
    description: description_i18n ?? sv.description,
    services: services.map(asInput),
  };
};

const swap = <T>(list: T[], i: number, j: number): T[] => {
  if (i < 0 || j < 0 || i >= list.length || j >= list.length) return list;
  const out = [...list];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
};

/**
 * A text of an edit form: per language when the form has `<name>.<lang>` fields (a page with several
 * languages: the filled ones as a map, `plain` the first of them), else the plain field `<name>`.
 */
function texts(f: FormValues, name: string): { plain: string; map: LocalizedText | null } {
  const keys = PAGE_LANGUAGES.filter((l) => f[`${name}.${l}`] !== undefined);
  if (keys.length === 0) return { plain: text(f, name).trim(), map: null };
  const map: Record<string, string> = {};
  for (const l of keys) {
    const t = text(f, `${name}.${l}`).trim();
    if (t) map[l] = t;
  }
  const first = Object.values(map)[0];
  return first === undefined ? { plain: '', map: null } : { plain: first, map: map as LocalizedText };
}

/**
 * One edit of a page's sections from a console form (plain buttons, no script): `op` is
 * `add-section` (name), `rename-section` (section, name or name.<lang>), `remove-section`, `move-section` (dir
 * up|down), `add-service` (uuid, repeated: each is added, in order), `edit-service` (section, service, name_shown, description — each also per language as `.<lang>` —,
 * show_uptime, show_response_times: a service's own texts and switches),
 * `remove-service` or `move-service` (section, service index, dir), `add-group` (section, name: a
 * service with `is_group` and no monitor), `add-child` (section, group index, uuid, repeated) or
 * `remove-child` (section, group index, child index). Adds are idempotent: a section or group of
 * the same name, or a service already in that section or group, is not added again. Out-of-range indexes change nothing; the result is validated by the API's schema and rules when stored.
 * @returns the new sections
 */
export function editSections(current: readonly PageSection[], f: FormValues): SectionInput[] {
  let sections: Section[] = current.map((s) => ({ name: s.name, name_i18n: s.name_i18n, services: [...s.services] }));
  const si = Number(text(f, 'section'));
  const vi = Number(text(f, 'service'));
  const delta = text(f, 'dir') === 'up' ? -1 : 1;
  const at = sections[si];
  const group = at?.services[vi];
  const fresh = (uuid: string): PageService => ({ monitor_uuid: uuid, name_shown: null, show_uptime: true, show_response_times: true, description: null, is_group: false, services: [] });
  switch (text(f, 'op')) {
    // Adds are idempotent (a double-clicked "Add" posts twice): a section or group of that name, a service already in that place is not added again.
    case 'add-section':
      if (!sections.some((x) => x.name === text(f, 'name').trim())) sections.push({ name: text(f, 'name').trim(), services: [] });
      break;
    case 'rename-section':
      if (at) {
        const n = texts(f, 'name');
        at.name = n.plain;
        at.name_i18n = n.map;
      }
      break;
    case 'edit-service':
      if (at && at.services[vi]) {
        const sv = at.services[vi];
        const n = texts(f, 'name_shown');
        const d = texts(f, 'description');
        at.services[vi] = {
          ...sv,
          name_shown: n.map ? null : n.plain || null,
          name_i18n: n.map,
          description: d.plain || null,
          description_i18n: d.map,
          show_uptime: f.show_uptime !== undefined,
          show_response_times: f.show_response_times !== undefined,
        };
      }
      break;
    case 'remove-section':
      sections = sections.filter((_, i) => i !== si);
      break;
    case 'move-section':
      sections = swap(sections, si, si + delta);
      break;
    case 'add-service':
      // Every uuid the picker posts (views/console/picker.tsx), in order.
      if (at) for (const uuid of many(f, 'uuid')) if (!at.services.some((x) => !x.is_group && x.monitor_uuid === uuid)) at.services.push(fresh(uuid));
      break;
    case 'add-group':
      if (at && !at.services.some((x) => x.is_group && x.name_shown === text(f, 'name').trim())) at.services.push({ ...fresh(''), name_shown: text(f, 'name').trim(), is_group: true });
      break;
    case 'add-child':
      if (at && group?.is_group) at.services[vi] = { ...group, services: [...group.services, ...many(f, 'uuid').filter((u) => !group.services.some((x) => x.monitor_uuid === u)).map(fresh)] };
      break;
    case 'remove-child':
      if (at && group?.is_group) at.services[vi] = { ...group, services: group.services.filter((_, i) => i !== Number(text(f, 'child'))) };
      break;
    case 'remove-service':
      if (at) at.services = at.services.filter((_, i) => i !== vi);
      break;
    case 'move-service':
      if (at) at.services = swap(at.services, vi, vi + delta);
      break;
  }
  // A group has no monitor: stored as '', sent without one (the API's schema wants a uuid or nothing).
  return sections.map((sec) => ({ name: sec.name_i18n ?? sec.name, services: sec.services.map(asInput) }));
}

/** Optional text: trimmed, '' → null (the API's "not set"). */
const orNull = (f: FormValues, name: string): string | null => text(f, name).trim() || null;
const on = (f: FormValues, name: string): boolean => f[name] !== undefined;
const many = (f: FormValues, name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/**
 * The settings form of a status page as the API's PUT body (`StatuspagePatchBody`, validated by the
 * caller with that schema): every field the API takes but `sections` (edited by their own buttons,
 * {@link editSections}). Field names: the API's (`subscribe.email`, `authentication.saml_sso`, …);
 * `description.<lang>` and `footer_text.<lang>` one text per language (none filled → null);
 * `custom_css` as typed (blank → null); `languages` repeated;
 * `authentication.google_allowed_domains` separated by commas or spaces; `password` empty keeps the
 * stored one, `password_remove` removes it (`password: null`). An unticked checkbox is false.
 */
export function settingsBody(f: FormValues): Record<string, unknown> {
  // One text per language (`<name>.<lang>`): the filled ones as a localized map, none → null.
  const localized = (name: string): Record<string, string> | null => {
    const out: Record<string, string> = {};
    for (const l of PAGE_LANGUAGES) {
      const t = text(f, `${name}.${l}`).trim();
      if (t) out[l] = t;
    }
    return Object.keys(out).length ? out : null;
  };
  const subdomain = text(f, 'subdomain').trim();
  const password = text(f, 'password');
  const domains = text(f, 'authentication.google_allowed_domains')
    .split(/[\s,]+/)
    .filter(Boolean);
  return {
    name: text(f, 'name'),
    ...(subdomain ? { subdomain } : {}),
    hostname: orNull(f, 'hostname'),
    website: orNull(f, 'website'),
    description: localized('description'),
    footer_text: localized('footer_text'),
    custom_css: text(f, 'custom_css').trim() ? text(f, 'custom_css') : null,
    languages: many(f, 'languages'),
    ...(text(f, 'default_language') ? { default_language: text(f, 'default_language') } : {}),
    theme: text(f, 'theme'),
    font: text(f, 'font'),
    accent_color: text(f, 'accent_color').trim(),
    auto_refresh: on(f, 'auto_refresh'),
    banner_header: on(f, 'banner_header'),
    logo: orNull(f, 'logo'),
    logo_height: text(f, 'logo_height').trim(),
    favicon: orNull(f, 'favicon'),
    hide_powered_by: on(f, 'hide_powered_by'),
    hide_from_search_engines: on(f, 'hide_from_search_engines'),
    google_analytics: orNull(f, 'google_analytics'),
    subscribe: { enabled: on(f, 'subscribe.enabled'), email: on(f, 'subscribe.email'), slack: on(f, 'subscribe.slack'), teams: on(f, 'subscribe.teams'), sms: on(f, 'subscribe.sms') },
    authentication: {
      password_protection: on(f, 'authentication.password_protection'),
      google_sso: on(f, 'authentication.google_sso'),
      saml_sso: on(f, 'authentication.saml_sso'),
      google_allowed_domains: domains,
      sso_connection_uuid: orNull(f, 'authentication.sso_connection_uuid'),
    },
    ...(on(f, 'password_remove') ? { password: null } : password ? { password } : {}),
  };
}
