import type { Account, SessionInfo, TokenInfo } from '../../src/domain/user.ts';
import type { ProbeListing } from '../../src/domain/probe.ts';
import type { FormErrors, Shell } from './model.ts';
import { isAdmin } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout, ago, when } from './layout.tsx';
import { Invitations, type InvitationsView } from './invitations.tsx';
import type { BackupStatus } from '../../src/domain/backup.ts';
import { BackupsSection } from './settings-backups.tsx';

/** Everything the settings screen shows; admin-only parts are absent for others. */
export interface SettingsView {
  /** The person has TOTP on. */
  totpOn: boolean;
  /** A proposed TOTP secret to scan (set-up step). */
  totp?: { secret: string; uri: string; qrSvg: string } | undefined;
  /** Recovery codes just made: shown this once. */
  recoveryCodes?: string[] | undefined;
  sessions: SessionInfo[];
  currentRef: string;
  users: Account[];
  /** Single sign-on door and open invitations (admins). */
  invitations: InvitationsView;
  tokens: TokenInfo[];
  probes: ProbeListing[];
  channels: Array<{ name: string; type: string }>;
  about: { version: string; database: { name: string; version: string }; node: string; dataDir: string; dbBytes: number | null; publicUrl: string };
  /** Scheduled backups (admins; issue 37), else null. */
  backups?: BackupStatus | null | undefined;
  /** A token just created: shown this once. */
  newToken?: string | undefined;
  notice?: string | undefined;
  /** The answer of "send test alert": the channel and null when delivered, else why not. */
  channelResult?: { name: string; error: string | null } | undefined;
  errors?: { form: 'password' | 'user' | 'token' | 'totp'; errors: FormErrors } | undefined;
  now: number;
}

const errs = (v: SettingsView, form: 'password' | 'user' | 'token' | 'totp') => (v.errors?.form === form ? v.errors.errors : undefined);

/** Settings: your account and sessions; for admins users and API tokens; probes, channels and about. */
export function SettingsPage(props: { s: Shell; v: SettingsView }) {
  const { s, v } = props;
  return (
    <Layout s={s} title="Settings">
      <h1>Settings</h1>
      {v.notice ? <p class="notice">{v.notice}</p> : null}
      {v.newToken ? (
        <div class="notice" id="new-token">
          <p>New API token (shown once, keep it safe):</p>
          <p class="secret">{v.newToken}</p>
          <button type="button" class="secondary" data-copy={v.newToken}>
            Copy
          </button>
        </div>
      ) : null}
      <h2 id="sessions">Your sessions</h2>
      <div class="card">
        <table class="rows">
          <thead>
            <tr>
              <th>Browser</th>
              <th>Address</th>
              <th>Signed in</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {v.sessions.map((x) => (
              <tr data-session={x.ref}>
                <td class="small">{x.userAgent || 'unknown'}</td>
                <td class="small">{x.address}</td>
                <td class="small">{when(x.createdAt)}</td>
                <td class="small">{ago(x.lastSeenAt, v.now)}</td>
                <td>
                  {x.ref === v.currentRef ? (
                    <span class="muted">this one</span>
                  ) : (
                    <form method="post" action={`/settings/sessions/${x.ref}/end`}>
                      <Csrf s={s} />
                      <button type="submit" class="secondary">
                        Sign out
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form method="post" action="/settings/sessions/end-all" class="actions">
          <Csrf s={s} />
          <button type="submit" class="danger">
            Sign out everywhere
          </button>
        </form>
      </div>
      <h2>Your password</h2>
      <form class="card stack" method="post" action="/settings/password">
        <Csrf s={s} />
        <FormAlert errors={errs(v, 'password')} />
        <label>
          Current password
          <input type="password" name="current_password" autocomplete="current-password" required />
          <FieldError errors={errs(v, 'password')} name="current_password" />
        </label>
        <label>
          New password (at least 10 characters; every session ends)
          <input type="password" name="password" autocomplete="new-password" required />
          <FieldError errors={errs(v, 'password')} name="password" />
        </label>
        <button type="submit">Change password</button>
      </form>
      <TwoFactor s={s} v={v} />
      {isAdmin(s) ? <Admin s={s} v={v} /> : null}
      <h2>Remote probes</h2>
      <div class="card">
        <table class="rows" id="probes">
          <thead>
            <tr>
              <th>Probe</th>
              <th>Region</th>
              <th>Status</th>
              <th>Monitors</th>
              <th class="hide-sm">Checks/s</th>
              <th class="hide-sm">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {v.probes.map((p) => (
              <tr>
                <td>{p.name}</td>
                <td>{p.region}</td>
                <td>
                  <span class="status" data-status={p.status === 'online' ? 'up' : 'down'}>
                    {p.status}
                  </span>
                </td>
                <td class="num">{p.monitors}</td>
                <td class="num hide-sm">{p.checksPerSecond.toFixed(1)}</td>
                <td class="hide-sm small">{ago(p.lastSeen, v.now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Alert channels and escalation policies</h2>
      <div class="card" id="alerting">
        <p>
          Alerts go to <a href="/integrations">Integrations</a> (add one, send a test) when an{' '}
          <a href="/escalation-policies">Escalation policy</a> says so.
        </p>
        {v.channels.length > 0 ? <p class="muted small">Declared in config.yaml (shown read-only on the Integrations page):</p> : null}
        {v.channelResult ? (
          <p class={v.channelResult.error ? 'alert' : 'notice'} id="channel-result" role="status">
            {v.channelResult.error ? `Test alert to ${v.channelResult.name} failed: ${v.channelResult.error}` : `Test alert delivered to ${v.channelResult.name}.`}
          </p>
        ) : null}
        <table class="rows" id="channels">
          <tbody>
            {v.channels.map((ch) => (
              <tr data-channel={ch.name}>
                <td>
                  {ch.name} <span class="muted">({ch.type})</span>
                </td>
                <td>
                  {isAdmin(s) ? (
                    <form method="post" action={`/settings/channels/${ch.name}/test`}>
                      <Csrf s={s} />
                      <button type="submit" class="secondary">
                        Send test alert
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>About</h2>
      <div class="card">
        <dl class="props">
          <dt>Version</dt>
          <dd>{v.about.version}</dd>
          <dt>{v.about.database.name}</dt>
          <dd>{v.about.database.version}</dd>
          <dt>Node</dt>
          <dd>{v.about.node}</dd>
          <dt>Public URL</dt>
          <dd>{v.about.publicUrl}</dd>
          <dt>Data folder</dt>
          <dd>{v.about.dataDir}</dd>
          <dt>Database size</dt>
          <dd>{v.about.dbBytes === null ? '—' : `${(v.about.dbBytes / 1_048_576).toFixed(1)} MiB`}</dd>
        </dl>
      </div>
      {v.backups ? <BackupsSection b={v.backups} now={v.now} /> : null}
    </Layout>
  );
}

/** Two-factor sign-in: set up (QR code as inline SVG, confirm with a code, recovery codes once) or turn off. */
function TwoFactor(props: { s: Shell; v: SettingsView }) {
  const { s, v } = props;
  return (
    <>
      <h2 id="totp">Two-factor sign-in</h2>
      <div class="card" id="totp-card">
        <FormAlert errors={errs(v, 'totp')} />
        {v.recoveryCodes ? (
          <div class="notice">
            <p>Two-factor sign-in is on. Recovery codes (each works once; shown only now):</p>
            <p class="secret" id="recovery-codes">
              {v.recoveryCodes.join(' ')}
            </p>
          </div>
        ) : v.totp ? (
          <form class="stack" method="post" action="/settings/totp/enable">
            <Csrf s={s} />
            <p>Scan this with an authenticator app, or type the key {v.totp.secret}:</p>
            <div class="qr" dangerouslySetInnerHTML={{ __html: v.totp.qrSvg }} />
            <input type="hidden" name="secret" value={v.totp.secret} />
            <label>
              The 6 digits the app shows
              <input type="text" name="code" autocomplete="one-time-code" inputmode="numeric" required />
              <FieldError errors={errs(v, 'totp')} name="code" />
            </label>
            <button type="submit">Turn on</button>
          </form>
        ) : v.totpOn ? (
          <form class="stack" method="post" action="/settings/totp/disable">
            <Csrf s={s} />
            <p>
              Two-factor sign-in is <b>on</b>.
            </p>
            <label>
              Current password
              <input type="password" name="current_password" autocomplete="current-password" required />
              <FieldError errors={errs(v, 'totp')} name="current_password" />
            </label>
            <button type="submit" class="danger">
              Turn off
            </button>
          </form>
        ) : (
          <form method="post" action="/settings/totp/start">
            <Csrf s={s} />
            <p>Two-factor sign-in is off.</p>
            <button type="submit" class="secondary">
              Set up two-factor sign-in
            </button>
          </form>
        )}
      </div>
    </>
  );
}

function Admin(props: { s: Shell; v: SettingsView }) {
  const { s, v } = props;
  return (
    <>
      <h2 id="users">Users</h2>
      <div class="card">
        <table class="rows" id="users-table">
          <thead>
            <tr>
              <th>Person</th>
              <th>Role</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {v.users.map((u) => (
              <tr data-user={u.email}>
                <td>
                  {u.name}
                  <div class="muted small">{u.email}</div>
                </td>
                <td>{u.role}</td>
                <td>{`${u.disabledAt ? 'disabled' : 'active'}${u.ssoAt !== null ? ' · single sign-on' : ''}`}</td>
                <td>
                  {u.email === s.user.email ? null : (
                    <form method="post" action={`/settings/users/${u.uuid}/${u.disabledAt ? 'enable' : 'disable'}`}>
                      <Csrf s={s} />
                      <button type="submit" class="secondary">
                        {u.disabledAt ? 'Enable' : 'Disable'}
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3>Add a person</h3>
        <form class="stack" method="post" action="/settings/users">
          <Csrf s={s} />
          <FormAlert errors={errs(v, 'user')} />
          <label>
            Email
            <input type="email" name="email" required />
            <FieldError errors={errs(v, 'user')} name="email" />
          </label>
          <label>
            Name
            <input type="text" name="name" />
          </label>
          <label>
            Role
            <select name="role">
              <option value="viewer">viewer (sees everything, changes nothing)</option>
              <option value="editor">editor (monitors, outages, pages)</option>
              <option value="admin">admin (also users and API tokens)</option>
            </select>
            <FieldError errors={errs(v, 'user')} name="role" />
          </label>
          <label>
            Password (at least 10 characters)
            <input type="password" name="password" autocomplete="new-password" required />
            <FieldError errors={errs(v, 'user')} name="password" />
          </label>
          <button type="submit">Add person</button>
        </form>
        <Invitations s={s} v={v.invitations} />
      </div>
      <h2 id="tokens">API tokens</h2>
      <div class="card">
        <table class="rows" id="tokens-table">
          <thead>
            <tr>
              <th>Token</th>
              <th>Scope</th>
              <th>Owner</th>
              <th class="hide-sm">Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {v.tokens.map((t) => (
              <tr data-token={t.id}>
                <td>
                  {t.name}
                  <div class="muted small">{t.id}</div>
                </td>
                <td>{t.scope === 'probe' ? `probe: ${t.regions.join(', ') || 'no region'}` : t.scope}</td>
                <td class="small">{t.user.email}</td>
                <td class="hide-sm small">{when(t.createdAt)}</td>
                <td>
                  {t.revokedAt ? (
                    <span class="muted">revoked</span>
                  ) : (
                    <form method="post" action={`/settings/tokens/${t.id}/revoke`}>
                      <Csrf s={s} />
                      <button type="submit" class="secondary">
                        Revoke
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3>New token</h3>
        <form class="stack" method="post" action="/settings/tokens">
          <Csrf s={s} />
          <FormAlert errors={errs(v, 'token')} />
          <label>
            Name
            <input type="text" name="name" required maxlength={100} />
          </label>
          <label>
            Scope
            <select name="scope">
              <option value="read">read</option>
              <option value="write">write</option>
              <option value="probe">probe (pharos agent)</option>
            </select>
          </label>
          <label>
            Regions (probe tokens: the regions its agents may serve, comma-separated)
            <input type="text" name="regions" maxlength={300} placeholder="frankfurt, paris" />
          </label>
          <button type="submit">Create token</button>
        </form>
      </div>
    </>
  );
}
