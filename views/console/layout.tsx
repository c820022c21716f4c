import type { Child } from 'hono/jsx';
import type { FormErrors, FormValues, Shell } from './model.ts';
import { canWrite, formList } from './model.ts';
import { DeleteButton } from './delete-button.tsx';
import { ThemeToggle } from './theme.tsx';

// htmx settings: no inline indicator styles (strict CSP), no eval, and error pages (400 with the
// form and its messages) are swapped in like any other answer.
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  historyCacheSize: 0,
  responseHandling: [
    { code: '204', swap: false },
    { code: '...', swap: true },
  ],
});

/** The document head shared by every console page (signed in or not). */
function Head(props: { title: string; refresh?: boolean; nonce: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="htmx-config" content={HTMX_CONFIG} />
      <title>{`${props.title} · Pharos`}</title>
      <link rel="icon" href="/_pharos/favicon.svg" />
      <link rel="stylesheet" href="/_console/console.css" />
      {props.refresh ? (
        <noscript>
          <meta http-equiv="refresh" content="30" />
        </noscript>
      ) : null}
      <script src="/_console/htmx.min.js" nonce={props.nonce} defer />
      <script src="/_console/console.js" nonce={props.nonce} defer />
    </head>
  );
}

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/outages', 'Outages'],
  ['/statuspages', 'Status pages'],
  ['/maintenance', 'Maintenance'],
  ['/incidents', 'Incidents'],
  ['/components', 'Components'],
  ['/integrations', 'Integrations'],
  ['/escalation-policies', 'Escalation policies'],
  ['/on-call', 'On-call'],
  ['/audit-log', 'Audit log'],
  ['/profile', 'Profile'],
  ['/settings', 'Settings'],
];

/**
 * A signed-in screen: the bar with navigation and sign-out, then the content. The body carries
 * hx-boost (links and forms load without a full reload when JavaScript runs; plain posts and
 * redirects otherwise) and the CSRF header htmx sends with every request.
 */
export function Layout(props: { s: Shell; title: string; children?: Child; refresh?: boolean; live?: boolean }) {
  const { s } = props;
  const current = (href: string) => (href === '/' ? s.path === '/' : s.path.startsWith(href)) ? 'page' : undefined;
  return (
    <html lang="en" data-theme={s.theme === 'light' || s.theme === 'dark' ? s.theme : undefined}>
      <Head title={props.title} refresh={props.refresh ?? false} nonce={s.nonce} />
      <body hx-boost="true" hx-headers={JSON.stringify({ 'X-CSRF-Token': s.csrf })} data-live={props.live ? '/events' : undefined}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="bar">
          <a class="brand" href="/">
            Pharos
          </a>
          <nav aria-label="Main">
            {NAV.map(([href, label]) => (
              <a href={href} aria-current={current(href)}>
                {label}
              </a>
            ))}
          </nav>
          <div class="me">
            <ThemeToggle s={s} />
            <span title={s.user.email}>
              {s.user.name} · {s.user.role}
            </span>
            <form method="post" action="/logout">
              <input type="hidden" name="_csrf" value={s.csrf} />
              <button class="secondary" type="submit">
                Sign out
              </button>
            </form>
          </div>
        </header>
        <main id="main">{props.children}</main>
      </body>
    </html>
  );
}

/** A signed-out page (sign in, setup, messages). */
export function Bare(props: { title: string; nonce: string; children?: Child }) {
  return (
    <html lang="en">
      <Head title={props.title} nonce={props.nonce} />
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <main id="main" class="auth">{props.children}</main>
      </body>
    </html>
  );
}

/** The hidden CSRF field of a state-changing form. */
export function Csrf(props: { s: Shell }) {
  return <input type="hidden" name="_csrf" value={props.s.csrf} />;
}

/**
 * Edit, pause/resume and delete buttons of a monitor or healthcheck page (`base` is its path, e.g.
 * `/monitors/mon_…`); nothing for someone who may not write. Delete asks first (`confirm`: the
 * question of the dialog; without JavaScript the confirmation page, see delete-button.tsx). `clone`:
 * the address of a new-resource form prefilled from this one (a "Clone" link; nothing is saved until submitted).
 */
export function ResourceActions(props: { s: Shell; id: string; base: string; paused: boolean; confirm: string; clone?: string }) {
  const { s, base, paused } = props;
  if (!canWrite(s)) return null;
  return (
    <div class="actions" id={props.id}>
      <a class="button" href={`${base}/edit`}>
        Edit
      </a>
      {props.clone ? (
        <a class="button secondary" href={props.clone} id="clone">
          Clone
        </a>
      ) : null}
      <form method="post" action={`${base}/${paused ? 'resume' : 'pause'}`}>
        <Csrf s={s} />
        <button type="submit" class="secondary">
          {paused ? 'Resume' : 'Pause'}
        </button>
      </form>
      <DeleteButton s={s} base={base} question={props.confirm} />
    </div>
  );
}

/** The API's message for a whole form (shown above it). */
export function FormAlert(props: { errors?: FormErrors | undefined }) {
  return props.errors ? (
    <p class="alert" role="alert">
      {props.errors.message}
    </p>
  ) : null;
}

/** The API's message beside the field it names. */
export function FieldError(props: { errors?: FormErrors | undefined; name: string }) {
  const m = props.errors?.fields[props.name];
  return m ? (
    <span class="field-error" data-error-for={props.name}>
      {m}
    </span>
  ) : null;
}

/** "3 min ago" style relative time (epoch ms), or "never". */
export function ago(at: number | null, now: number): string {
  if (at === null) return 'never';
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** ISO date-time without seconds' fraction, UTC. */
export const when = (at: number | null): string => (at === null ? '—' : new Date(at).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');

/**
 * A fieldset of checkboxes, one per choice (`uuid` posted as `name`, ticked when the form had it),
 * "None yet." when there are none, and the field's error under it (`error`: the API's field name
 * where it differs from the form's, e.g. `affectedComponents`).
 */
export function Ticks(props: { name: string; legend: string; choices: Array<{ uuid: string; name: string }>; f: FormValues; errors?: FormErrors | undefined; error?: string }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.choices.map((ch) => (
        <label class="check">
          <input type="checkbox" name={props.name} value={ch.uuid} checked={formList(props.f, props.name).includes(ch.uuid)} /> {ch.name}
        </label>
      ))}
      {props.choices.length === 0 ? <p class="muted small">None yet.</p> : null}
      <FieldError errors={props.errors} name={props.error ?? props.name} />
    </fieldset>
  );
}
