import { z } from 'zod';
import { invalid } from '../lib/errors.ts';
import { LocalizedTextSchema, localize, type LocalizedText } from './localized.ts';

/** Page languages (API.md §2.9). */
export const PAGE_LANGUAGES = ['en', 'fr', 'de', 'ru', 'nl', 'pl', 'sv', 'es', 'it', 'pt', 'ja', 'zh'] as const;
/** Themes (API.md §2.9). */
export const THEMES = ['light', 'dark', 'system'] as const;
/** Fonts (API.md §2.9); each is served from the binary, never a CDN. */
export const FONTS = ['system-ui', 'Lato', 'Manrope', 'Inter', 'Open Sans', 'Montserrat', 'Poppins', 'Roboto', 'Raleway', 'Nunito', 'Merriweather', 'DM Sans', 'Work Sans'] as const;

/** The most characters of a page's custom CSS (`custom_css`). */
export const CUSTOM_CSS_MAX_CHARS = 20_000;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;
const bool = z.boolean({ error: 'must be a boolean' });
const httpUrl = z
  .string({ error: 'must be an http(s) URL' })
  .max(2048, 'must be at most 2048 characters')
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/**
 * A service (or group) of a section (API.md §2.9 `sections[].services[]`). Texts given as
 * localized maps keep the map in `*_i18n` (answered as given); the plain field holds the page's
 * first language, which the public page shows. A group may have no `monitor_uuid` (`''`).
 */
export interface PageService {
  monitor_uuid: string;
  name_shown: string | null;
  name_i18n?: LocalizedText | null;
  show_uptime: boolean;
  show_response_times: boolean;
  description: string | null;
  description_i18n?: LocalizedText | null;
  is_group: boolean;
  services: PageService[];
}

/** A section of a page; `name_i18n` as in {@link PageService}. */
export interface PageSection {
  name: string;
  name_i18n?: LocalizedText | null;
  services: PageService[];
}

/** A text given as a plain string (the page's first language) or a localized map `{en: "…"}` (the hosted service's shape). */
const textOrMap = (max: number) =>
  z.union([z.string().max(max, `must be at most ${max} characters`), LocalizedTextSchema], { error: `must be a string or an object of texts by language, such as {"en": "…"}` });
type TextIn = string | LocalizedText;
/** The plain text (first language) and the map of a string-or-map input; null stays null. */
export function splitText(v: TextIn | null | undefined, lang: string): { text: string | null; i18n: LocalizedText | null } {
  if (v === null || v === undefined) return { text: null, i18n: null };
  if (typeof v === 'string') return { text: v, i18n: null };
  return { text: localize(v, lang), i18n: v };
}
/** The localized map of a stored text: its map, or `{<lang>: text}`; null when there is no text. */
export function textMap(text: string | null, i18n: LocalizedText | null | undefined, lang: string): LocalizedText | null {
  if (i18n) return i18n;
  return text === null ? null : { [lang]: text };
}

const leafFields = {
  // Required for services, optional for groups (checked in resolveStatuspage so the 400 names it).
  monitor_uuid: z.string({ error: 'is required: a monitor, healthcheck or component uuid' }).min(1, 'is required: a monitor, healthcheck or component uuid').optional(),
  /** Nested children of the hosted service's clients name their monitor `uuid` and their text `name` (a map). */
  uuid: z.string({ error: 'must be a monitor, healthcheck or component uuid' }).min(1, 'must be a monitor, healthcheck or component uuid').optional(),
  name_shown: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters').nullable().optional(),
  name: textOrMap(255).nullable().optional(),
  show_uptime: bool.optional(),
  show_response_times: bool.optional(),
  description: textOrMap(2000).nullable().optional(),
  is_group: bool.optional(),
};
/** A service inside a group: groups nest one level (a group of services, not of groups). */
const ChildService = z.object(leafFields, { error: 'must be a service object {monitor_uuid, …}' });
/** A service or a group (`is_group` with `services`). */
const ServiceInput = z.object(
  { ...leafFields, services: z.array(ChildService, { error: 'must be an array of services' }).max(200, 'must have at most 200 services').optional() },
  { error: 'must be a service object {monitor_uuid, …}' },
);

/** Body of POST/PUT /v2/statuspages (API.md §2.9). Cross-field rules: {@link resolveStatuspage}. */
export const StatuspageBody = z.object({
  name: z.string({ error: 'is required and must be a string' }).trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters'),
  subdomain: z.string({ error: 'must be a string' }).regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'must be 1-63 letters, digits and hyphens, not starting or ending with a hyphen').optional(),
  hostname: z.string({ error: 'must be a host name' }).regex(HOSTNAME, 'must be a host name such as status.example.com').nullable().optional(),
  website: httpUrl.nullable().optional(),
  description: textOrMap(2000).nullable().optional(),
  languages: z.array(z.enum(PAGE_LANGUAGES, { error: oneOf(PAGE_LANGUAGES) }), { error: 'must be an array of languages' }).min(1, 'must name at least one language').optional(),
  /** The page's first language (the hosted service's clients send it beside `languages`). */
  default_language: z.enum(PAGE_LANGUAGES, { error: oneOf(PAGE_LANGUAGES) }).optional(),
  theme: z.enum(THEMES, { error: oneOf(THEMES) }).optional(),
  font: z.enum(FONTS, { error: oneOf(FONTS) }).optional(),
  accent_color: z.string({ error: 'must be a hex colour such as #36b27e' }).regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour such as #36b27e').optional(),
  auto_refresh: bool.optional(),
  banner_header: bool.optional(),
  logo: httpUrl.nullable().optional(),
  logo_height: z.string({ error: 'must be pixels such as 32px' }).regex(/^[1-9]\d{0,2}px$/, 'must be pixels such as 32px (1-999)').optional(),
  favicon: httpUrl.nullable().optional(),
  hide_powered_by: bool.optional(),
  hide_from_search_engines: bool.optional(),
  /** CSS added after the page's own styles (in a nonce'd `<style>`; the page's CSP still holds: no outside stylesheets or fonts). */
  custom_css: z
    .string({ error: 'must be a string of CSS' })
    .max(CUSTOM_CSS_MAX_CHARS, `must be at most ${CUSTOM_CSS_MAX_CHARS} characters`)
    .refine((css) => !/<\/style/i.test(css), 'must not contain "</style"')
    .nullable()
    .optional(),
  /** A line of text in the footer (a string, or a localized map like `description`). */
  footer_text: textOrMap(500).nullable().optional(),
  google_analytics: z.string({ error: 'must be a measurement ID such as G-ABC123' }).regex(/^G-[A-Z0-9]{4,20}$/, 'must be a measurement ID such as G-ABC123').nullable().optional(),
  /** A new password; null removes the stored one (then `password_protection` must be off). */
  password: z.string({ error: 'must be a string' }).min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters').nullable().optional(),
  subscribe: z
    .object({ enabled: bool.optional(), email: bool.optional(), slack: bool.optional(), teams: bool.optional(), sms: bool.optional() }, { error: 'must be an object of booleans' })
    .optional(),
  authentication: z
    .object(
      {
        password_protection: bool.optional(),
        google_sso: bool.optional(),
        saml_sso: bool.optional(),
        google_allowed_domains: z.array(z.string().regex(HOSTNAME, 'must be email domains such as example.com'), { error: 'must be an array of domains' }).optional(),
        sso_connection_uuid: z.string({ error: 'must be an sso_ uuid' }).nullable().optional(),
      },
      { error: 'must be an object' },
    )
    .optional(),
  sections: z
    .array(z.object({ name: textOrMap(255), is_split: bool.optional(), services: z.array(ServiceInput, { error: 'must be an array of services' }).max(200).default([]) }, { error: 'must be a section {name, services}' }), {
      error: 'must be an array of sections',
    })
    .max(50, 'must have at most 50 sections')
    .optional(),
});
export type StatuspageBodyInput = z.infer<typeof StatuspageBody>;
/** PUT body: every field optional (partial update, CONTRACT.md "Errors and validation"). */
export const StatuspagePatchBody = StatuspageBody.partial();
export type StatuspagePatchInput = z.infer<typeof StatuspagePatchBody>;

/** Everything of a page but identity, name, subdomain, hostname and sections (stored as JSON). */
export interface PageSettings {
  website: string | null;
  description: string | null;
  /** `description` as the localized map it was given as, or absent. */
  description_i18n?: LocalizedText | null;
  languages: string[];
  theme: (typeof THEMES)[number];
  font: (typeof FONTS)[number];
  accent_color: string;
  auto_refresh: boolean;
  banner_header: boolean;
  logo: string | null;
  logo_height: string;
  favicon: string | null;
  hide_powered_by: boolean;
  hide_from_search_engines: boolean;
  google_analytics: string | null;
  /** Absent on pages stored before it existed (read as null). */
  custom_css?: string | null;
  /** Footer line (first language); `footer_text_i18n` the localized map it was given as. Absent on older pages. */
  footer_text?: string | null;
  footer_text_i18n?: LocalizedText | null;
  subscribe: { enabled: boolean; email: boolean; slack: boolean; teams: boolean; sms: boolean };
  authentication: { password_protection: boolean; google_sso: boolean; saml_sso: boolean; google_allowed_domains: string[]; sso_connection_uuid: string | null };
}

/** A status page as the core and store see it. */
export interface Statuspage {
  id: number;
  uuid: string;
  name: string;
  subdomain: string;
  hostname: string | null;
  settings: PageSettings;
  sections: PageSection[];
  /** scrypt hash (`scrypt$<salt b64>$<hash b64>`), or null. */
  passwordHash: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Defaults of API.md §2.9. */
export const DEFAULT_SETTINGS: PageSettings = {
  website: null,
  description: null,
  languages: ['en'],
  theme: 'system',
  font: 'Inter',
  accent_color: '#36b27e',
  auto_refresh: false,
  banner_header: true,
  logo: null,
  logo_height: '32px',
  favicon: null,
  hide_powered_by: false,
  hide_from_search_engines: false,
  google_analytics: null,
  custom_css: null,
  footer_text: null,
  subscribe: { enabled: true, email: true, slack: false, teams: false, sms: false },
  authentication: { password_protection: false, google_sso: false, saml_sso: false, google_allowed_domains: [], sso_connection_uuid: null },
};

/** A subdomain made from a name: lower-case letters and digits joined by hyphens (`My Shop!` → `my-shop`). */
export function subdomainFrom(name: string): string {
  const s = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '');
  return s || 'status';
}

type ServiceIn = z.infer<typeof ServiceInput>;
type ChildIn = z.infer<typeof ChildService>;

/**
 * Body → page fields, over `current` (update) or the defaults (create). PUT keeps what it leaves
 * out; `sections`, when given, replace all sections (CONTRACT.md "Status pages").
 * @param serviceRef the uuid of the existing monitor, healthcheck or component a reference names
 *   (a uuid, or a monitor's numeric `id` as the Terraform provider sends since March 2026:
 *   `translateSectionsUUIDsToNumericIDs`), or undefined when it names none. Sections store the uuid.
 * @param knownConnection true for an existing SAML SSO connection uuid (`sso_…`)
 * @throws AppError 400 naming the field (unknown service, SAML without a connection or with an
 *   unknown one, password protection without a password)
 */
export function resolveStatuspage(
  body: StatuspagePatchInput,
  current: Pick<Statuspage, 'name' | 'settings' | 'sections' | 'subdomain' | 'hostname' | 'passwordHash'> | null,
  serviceRef: (ref: string) => string | undefined,
  knownConnection: (uuid: string) => boolean = () => false,
): { name: string; subdomain: string | undefined; hostname: string | null; settings: PageSettings; sections: PageSection[] } {
  const base = current?.settings ?? DEFAULT_SETTINGS;
  const name = body.name ?? current?.name;
  if (name === undefined) throw invalid('name', 'is required and must be a string');
  const pick = <K extends keyof PageSettings>(k: K, v: PageSettings[K] | null | undefined, nullable = false): PageSettings[K] =>
    v === undefined || (v === null && !nullable) ? base[k] : (v as PageSettings[K]);
  let languages = body.languages ? [...new Set(body.languages)] : base.languages;
  if (body.default_language) languages = [body.default_language, ...languages.filter((l) => l !== body.default_language)];
  const lang = languages[0] ?? 'en';
  const description = body.description === undefined ? { text: base.description, i18n: base.description_i18n ?? null } : splitText(body.description, lang);
  const footer = body.footer_text === undefined ? { text: base.footer_text ?? null, i18n: base.footer_text_i18n ?? null } : splitText(body.footer_text, lang);
  const settings: PageSettings = {
    website: pick('website', body.website, true),
    description: description.text,
    description_i18n: description.i18n,
    languages,
    theme: pick('theme', body.theme),
    font: pick('font', body.font),
    accent_color: pick('accent_color', body.accent_color),
    auto_refresh: pick('auto_refresh', body.auto_refresh),
    banner_header: pick('banner_header', body.banner_header),
    logo: pick('logo', body.logo, true),
    logo_height: pick('logo_height', body.logo_height),
    favicon: pick('favicon', body.favicon, true),
    hide_powered_by: pick('hide_powered_by', body.hide_powered_by),
    hide_from_search_engines: pick('hide_from_search_engines', body.hide_from_search_engines),
    google_analytics: pick('google_analytics', body.google_analytics, true),
    custom_css: body.custom_css === undefined ? (base.custom_css ?? null) : body.custom_css || null,
    footer_text: footer.text,
    footer_text_i18n: footer.i18n,
    subscribe: { ...base.subscribe, ...(body.subscribe ?? {}) },
    authentication: {
      ...base.authentication,
      ...Object.fromEntries(Object.entries(body.authentication ?? {}).filter(([, v]) => v !== undefined)),
    } as PageSettings['authentication'],
  };
  const auth = settings.authentication;
  if (auth.saml_sso && !auth.sso_connection_uuid) throw invalid('authentication.sso_connection_uuid', 'is required when saml_sso is true');
  if (auth.sso_connection_uuid && !knownConnection(auth.sso_connection_uuid)) throw invalid('authentication.sso_connection_uuid', `unknown SSO connection "${auth.sso_connection_uuid}"`);
  const hasPassword = body.password === null ? false : Boolean(body.password) || Boolean(current?.passwordHash);
  if (auth.password_protection && !hasPassword) throw invalid('password', 'is required when authentication.password_protection is true');

  const service = (s: ServiceIn | ChildIn, path: string, nested: boolean): PageService => {
    const ref = s.monitor_uuid ?? s.uuid ?? '';
    const children = 'services' in s ? (s.services ?? []) : [];
    if (children.length > 0 && !s.is_group) throw invalid(`${path}.services`, 'only a group (is_group: true) has nested services');
    if (nested && s.is_group) throw invalid(`${path}.is_group`, 'groups nest one level: a group holds services, not groups');
    if (ref === '' && !s.is_group) throw invalid(`${path}.monitor_uuid`, 'is required: a monitor, healthcheck or component uuid');
    const uuid = ref === '' ? '' : serviceRef(ref);
    if (uuid === undefined) throw invalid(`${path}.${s.monitor_uuid !== undefined ? 'monitor_uuid' : 'uuid'}`, `unknown monitor, healthcheck or component "${ref}"`);
    const shown = s.name_shown ?? null;
    const named = splitText(s.name, lang);
    const desc = splitText(s.description, lang);
    return {
      monitor_uuid: uuid,
      name_shown: shown ?? named.text,
      name_i18n: named.i18n,
      show_uptime: s.show_uptime ?? true,
      show_response_times: s.show_response_times ?? true,
      description: desc.text,
      description_i18n: desc.i18n,
      is_group: s.is_group ?? false,
      services: children.map((c, i) => service(c, `${path}.services.${i}`, true)),
    };
  };
  const sections = body.sections
    ? body.sections.map((sec, i) => {
        const n = splitText(sec.name, lang);
        if (!n.text?.trim()) throw invalid(`sections.${i}.name`, 'must not be empty');
        return { name: n.text.trim(), name_i18n: n.i18n, services: sec.services.map((s, j) => service(s, `sections.${i}.services.${j}`, false)) };
      })
    : (current?.sections ?? []);
  return { name, subdomain: body.subdomain?.toLowerCase(), hostname: body.hostname === undefined ? (current?.hostname ?? null) : (body.hostname?.toLowerCase() ?? null), settings, sections };
}
