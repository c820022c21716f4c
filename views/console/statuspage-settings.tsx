import { CUSTOM_CSS_MAX_CHARS, FONTS, PAGE_LANGUAGES, THEMES, type Statuspage } from '../../src/domain/statuspage.ts';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { Csrf, FieldError } from './layout.tsx';

/** An SSO connection a page may use for SAML sign-in. */
export interface ConnectionChoice {
  uuid: string;
  name: string;
}

/** Props of {@link StatuspageSettingsForm}. */
export interface SettingsProps {
  s: Shell;
  page: Statuspage;
  /** The posted form when it was refused (shown again as typed), else undefined (the stored page). */
  draft?: FormValues | undefined;
  errors?: FormErrors | undefined;
  connections: ConnectionChoice[];
  /** False for a viewer: every field disabled, no buttons. */
  w: boolean;
}

/**
 * Every setting of a status page the API's PUT takes (but sections, edited by their own buttons):
 * field names as the API's (`subscribe.email`, `authentication.saml_sso`), read back by
 * `settingsBody` (src/http/console/page-editor.ts) and validated by the API's schema. The password
 * is never shown: a new one replaces it, "Remove" drops it. "Preview" posts the same form to the
 * preview (a new tab without JavaScript; with it the preview frame follows typing).
 */
export function StatuspageSettingsForm(props: SettingsProps) {
  const { page: p, draft, errors, w } = props;
  const st = p.settings;
  // The value shown: as posted when the form was refused, else as stored.
  const val = (name: string, stored: string | null | undefined): string => {
    if (!draft) return stored ?? '';
    const v = draft[name];
    return typeof v === 'string' ? v : '';
  };
  const checked = (name: string, stored: boolean): boolean => (draft ? draft[name] !== undefined : stored);
  const langs = draft ? (Array.isArray(draft.languages) ? draft.languages : typeof draft.languages === 'string' ? [draft.languages] : []) : st.languages;
  const descLangs = st.languages.length ? st.languages : ['en'];
  const textIn = (i18n: Record<string, string> | null | undefined, plain: string | null | undefined, l: string) => (i18n ? i18n[l] : l === descLangs[0] ? plain : null);
  const descOf = (l: string) => textIn(st.description_i18n, st.description, l);
  const Text = (x: { name: string; label: string; stored: string | null; type?: string; hint?: string; field?: string }) => (
    <label>
      {x.label}
      {x.hint ? <span class="muted small"> {x.hint}</span> : null}
      <input type={x.type ?? 'text'} name={x.name} value={val(x.name, x.stored)} disabled={!w} />
      <FieldError errors={errors} name={x.field ?? x.name} />
    </label>
  );
  const Check = (x: { name: string; label: string; stored: boolean }) => (
    <label class="check">
      <input type="checkbox" name={x.name} checked={checked(x.name, x.stored)} disabled={!w} /> {x.label}
    </label>
  );
  const Choice = (x: { name: string; label: string; stored: string; options: readonly string[] }) => (
    <label>
      {x.label}
      <select name={x.name} disabled={!w}>
        {x.options.map((o) => (
          <option value={o} selected={val(x.name, x.stored) === o}>
            {o}
          </option>
        ))}
      </select>
      <FieldError errors={errors} name={x.name} />
    </label>
  );
  const passwordSet = p.passwordHash !== null;
  return (
    <form class="stack card" method="post" action={`/statuspages/${p.uuid}`} id="page-settings" hx-boost="false" data-preview={`/statuspages/${p.uuid}/preview`}>
      <Csrf s={props.s} />
      <fieldset>
        <legend>Page</legend>
        <label>
          Name
          <input type="text" name="name" value={val('name', p.name)} required disabled={!w} />
          <FieldError errors={errors} name="name" />
        </label>
        {descLangs.map((l) => (
          <label>
            Description{descLangs.length > 1 ? ` (${l})` : ''}
            <textarea name={`description.${l}`} disabled={!w}>
              {val(`description.${l}`, descOf(l) ?? '')}
            </textarea>
          </label>
        ))}
        <FieldError errors={errors} name="description" />
        <Text name="website" label="Website" type="url" stored={st.website} hint="(a link in the header)" />
        <fieldset class="inline">
          <legend>Languages</legend>
          {PAGE_LANGUAGES.map((l) => (
            <label class="check">
              <input type="checkbox" name="languages" value={l} checked={langs.includes(l)} disabled={!w} /> {l}
            </label>
          ))}
          <FieldError errors={errors} name="languages" />
        </fieldset>
        <Choice name="default_language" label="Default language" stored={st.languages[0] ?? 'en'} options={PAGE_LANGUAGES} />
      </fieldset>
      <fieldset>
        <legend>Address</legend>
        <Text name="subdomain" label="Subdomain" stored={p.subdomain} />
        <Text name="hostname" label="Custom domain" stored={p.hostname} hint="(a CNAME to this server; empty: none)" />
      </fieldset>
      <fieldset>
        <legend>Look</legend>
        <Choice name="theme" label="Theme" stored={st.theme} options={THEMES} />
        <Choice name="font" label="Font" stored={st.font} options={FONTS} />
        <Text name="accent_color" label="Accent colour" stored={st.accent_color} hint="(#rgb or #rrggbb)" />
        <Text name="logo" label="Logo URL" type="url" stored={st.logo} />
        <Text name="logo_height" label="Logo height" stored={st.logo_height} hint="(such as 32px)" />
        <Text name="favicon" label="Favicon URL" type="url" stored={st.favicon} />
        <Check name="banner_header" label="Compact top banner (off: a larger centred logo)" stored={st.banner_header} />
        <Check name="hide_powered_by" label='Hide "Powered by Pharos" in the footer' stored={st.hide_powered_by} />
        <Check name="auto_refresh" label="Refresh the page every minute" stored={st.auto_refresh} />
        <Check name="hide_from_search_engines" label="Hide from search engines" stored={st.hide_from_search_engines} />
        <Text name="google_analytics" label="Google Analytics measurement ID" stored={st.google_analytics} hint="(G-…)" />
        {descLangs.map((l) => (
          <Text name={`footer_text.${l}`} label={`Footer text${descLangs.length > 1 ? ` (${l})` : ''}`} stored={textIn(st.footer_text_i18n, st.footer_text, l) ?? null} field="footer_text" />
        ))}
        <label>
          Custom CSS <span class="muted small">(at most {CUSTOM_CSS_MAX_CHARS.toLocaleString('en')} characters; applied after the page's own styles)</span>
          <textarea name="custom_css" rows={6} spellcheck={false} class="code" disabled={!w}>
            {val('custom_css', st.custom_css ?? '')}
          </textarea>
          <FieldError errors={errors} name="custom_css" />
        </label>
      </fieldset>
      <fieldset>
        <legend>Subscriptions</legend>
        <Check name="subscribe.enabled" label="Show the Subscribe button" stored={st.subscribe.enabled} />
        <Check name="subscribe.email" label="By email" stored={st.subscribe.email} />
        <Check name="subscribe.slack" label="By Slack webhook" stored={st.subscribe.slack} />
        <Check name="subscribe.teams" label="By Teams webhook" stored={st.subscribe.teams} />
        <Check name="subscribe.sms" label="By text message" stored={st.subscribe.sms} />
        <FieldError errors={errors} name="subscribe" />
      </fieldset>
      <fieldset>
        <legend>Who may see it</legend>
        <Check name="authentication.password_protection" label="Ask visitors for a password" stored={st.authentication.password_protection} />
        <p class="muted small" data-password-state={passwordSet ? 'set' : 'none'}>
          {passwordSet ? 'A password is set (never shown).' : 'No password is set.'}
        </p>
        <label>
          {passwordSet ? 'New password (empty: keep the current one)' : 'Password'}
          <input type="password" name="password" autocomplete="new-password" disabled={!w} />
          <FieldError errors={errors} name="password" />
        </label>
        {passwordSet ? <Check name="password_remove" label="Remove the password" stored={false} /> : null}
        <Check name="authentication.google_sso" label="Visitors sign in with an identity provider" stored={st.authentication.google_sso} />
        <Text name="authentication.google_allowed_domains" label="Allowed email domains" stored={st.authentication.google_allowed_domains.join(', ')} hint="(comma-separated)" field="authentication.google_allowed_domains" />
        <Check name="authentication.saml_sso" label="Visitors sign in through SAML" stored={st.authentication.saml_sso} />
        <label>
          SSO connection
          <select name="authentication.sso_connection_uuid" disabled={!w}>
            <option value="">none</option>
            {props.connections.map((c) => (
              <option value={c.uuid} selected={val('authentication.sso_connection_uuid', st.authentication.sso_connection_uuid) === c.uuid}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        {/* The API names nested fields (authentication.sso_connection_uuid …); the form shows them once, here. */}
        <FieldError errors={errors} name="authentication" />
      </fieldset>
      {w ? (
        <div class="actions">
          <button type="submit">Save settings</button>
          <button type="submit" class="secondary" formaction={`/statuspages/${p.uuid}/preview`} formtarget="_blank" data-preview-button="">
            Preview
          </button>
        </div>
      ) : null}
    </form>
  );
}

/** The editor's layout: settings and the preview side by side on wide screens (the preview stays in view), one above the other on a phone. */
export const PAGE_EDITOR_CSS = `
.page-editor{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}
.page-editor fieldset{min-width:0;border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem .75rem}
.page-editor fieldset.inline{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.page-editor fieldset.inline legend{width:100%}
.page-preview h3{font-size:1rem;margin:0 0 .4rem}
.page-preview iframe{display:block;width:100%;height:70vh;min-height:26rem;border:1px solid var(--line);border-radius:8px;background:#fff}
@media (min-width:1000px){.page-editor{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}.page-preview{position:sticky;top:.5rem;align-self:start}}
.service-edit summary{cursor:pointer;color:var(--accent)}
.service-edit form{margin:.4rem 0}
`;
