import type { FormErrors } from './model.ts';
import { Bare, FieldError, FormAlert } from './layout.tsx';

/**
 * The sign-in page (also `/` for a signed-out visitor). Login posts carry no session, so they are
 * protected by the Origin check. With `console.sso` set, `sso` is the single sign-on button's label
 * (the password form stays for people with a password, such as the first admin). `askCode` (after a
 * 429) adds the optional TOTP code field: a valid code with the password signs in even while the
 * account is closed to new addresses.
 */
export function LoginPage(props: { nonce: string; email?: string; errors?: FormErrors | undefined; next?: string; notice?: string | undefined; sso?: string | null | undefined; askCode?: boolean }) {
  return (
    <Bare title="Sign in" nonce={props.nonce}>
      <h1>Sign in to Pharos</h1>
      {props.notice ? <p class="notice">{props.notice}</p> : null}
      <FormAlert errors={props.errors} />
      {props.sso ? (
        <p class="card">
          <a class="button" id="sso-sign-in" href={`/login/sso?next=${encodeURIComponent(props.next ?? '/')}`}>
            {`Sign in with ${props.sso}`}
          </a>
        </p>
      ) : null}
      <form class="stack card" method="post" action="/login">
        <input type="hidden" name="next" value={props.next ?? '/'} />
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required value={props.email ?? ''} />
        </label>
        <label>
          Password
          <input type="password" name="password" autocomplete="current-password" required />
        </label>
        {props.askCode ? (
          <label>
            Two-factor code, if you use one
            <input type="text" name="code" autocomplete="one-time-code" inputmode="numeric" />
          </label>
        ) : null}
        <button type="submit">Sign in</button>
      </form>
      <p class="muted small">
        The API reference is at <a href="/docs">/docs</a>. Status pages are public at their own addresses.
      </p>
    </Bare>
  );
}

/**
 * `/` and `/login` before anyone can sign in (issue 33 point 10): how to finish setup instead of a
 * sign-in form that could only answer "Wrong email or password". `here`: the origin this page was
 * reached at (the link works at any address Pharos listens on, whatever `public_url` says). With
 * `console.sso` set, `sso` is its button's label: people it allows can sign in already (as viewers).
 */
export function SetupNeededPage(props: { nonce: string; here: string; sso?: string | null | undefined; next?: string }) {
  return (
    <Bare title="Finish setting up Pharos" nonce={props.nonce}>
      <h1>Finish setting up Pharos</h1>
      <div class="card" id="setup-needed">
        <p>Nobody can sign in yet: the first admin is made through a one-time setup link, or on the server.</p>
        <ol>
          <li>
            Open the setup link from the server's log: the line <code>no console user yet: open …/setup/…</code> (in the terminal running <code>pharos serve</code>, or <code>journalctl -u pharos</code> for the service). It works once, for an hour, at any address Pharos listens on, this one too: <code>{`${props.here}/setup/…`}</code>. Restart Pharos for a new one.
          </li>
          <li>
            Or, on the server: <code>pharos user create --email you@example.com --role admin</code> (it prints a new random password once; from source: <code>npm run pharos -- user create …</code>), then reload this page and sign in.
          </li>
        </ol>
      </div>
      {props.sso ? (
        <p class="card">
          People single sign-on allows can sign in already (as viewers until an admin gives them a role):{' '}
          <a class="button" id="sso-sign-in" href={`/login/sso?next=${encodeURIComponent(props.next ?? '/')}`}>
            {`Sign in with ${props.sso}`}
          </a>
        </p>
      ) : null}
      <p class="muted small">
        The API reference is at <a href="/docs">/docs</a>. Status pages are public at their own addresses.
      </p>
    </Bare>
  );
}

/** The second step of signing in with TOTP: the 6-digit code of the app, or a recovery code. */
export function TotpPage(props: { nonce: string; next: string; error?: string }) {
  return (
    <Bare title="Sign in" nonce={props.nonce}>
      <h1>Your code</h1>
      {props.error ? (
        <p class="alert" role="alert">
          {props.error}
        </p>
      ) : null}
      <form class="stack card" method="post" action="/login/totp">
        <input type="hidden" name="next" value={props.next} />
        <label>
          The 6 digits your authenticator app shows (or a recovery code)
          <input type="text" name="code" autocomplete="one-time-code" inputmode="numeric" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </Bare>
  );
}

/** The first-start page behind the one-time setup link: creates the first admin. */
export function SetupPage(props: { nonce: string; token: string; values?: { email?: string; name?: string }; errors?: FormErrors | undefined }) {
  return (
    <Bare title="Set up Pharos" nonce={props.nonce}>
      <h1>Create the first admin</h1>
      <p class="muted">This link works once. Later people are added under Settings → Users or with <code>pharos user create</code>.</p>
      <FormAlert errors={props.errors} />
      <form class="stack card" method="post" action={`/setup/${props.token}`}>
        <label>
          Email
          <input type="email" name="email" autocomplete="username" required value={props.values?.email ?? ''} />
          <FieldError errors={props.errors} name="email" />
        </label>
        <label>
          Name
          <input type="text" name="name" autocomplete="name" value={props.values?.name ?? ''} />
        </label>
        <label>
          Password (at least 10 characters)
          <input type="password" name="password" autocomplete="new-password" required />
          <FieldError errors={props.errors} name="password" />
        </label>
        <button type="submit">Create admin and sign in</button>
      </form>
    </Bare>
  );
}

/** A plain message page for signed-out visitors (a spent setup link, a refusal). */
export function MessagePage(props: { nonce: string; title: string; message: string }) {
  return (
    <Bare title={props.title} nonce={props.nonce}>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p>
        <a href="/login">Sign in</a>
      </p>
    </Bare>
  );
}
