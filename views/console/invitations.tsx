import type { Invitation } from '../../src/domain/user.ts';
import type { FormErrors, Shell } from './model.ts';
import { Csrf, FieldError, FormAlert, when } from './layout.tsx';

/** What Settings → Users shows about single sign-on: the door (null = off) and the open invitations. */
export interface InvitationsView {
  /** "Sign in with …" label of `console.sso`, or null when the console has no single sign-on. */
  sso: string | null;
  list: Invitation[];
  errors?: FormErrors | undefined;
}

/**
 * Settings → Users → Invitations (admins): an email and the role its first single sign-on gets
 * (instead of `viewer`); open invitations listed with a revoke button.
 */
export function Invitations(props: { s: Shell; v: InvitationsView }) {
  const { s, v } = props;
  return (
    <>
      <h3 id="invitations">Invitations</h3>
      <p class="muted small">
        {v.sso
          ? `People sign in with ${v.sso}: a first sign-in becomes a viewer, unless the email is invited here with a role.`
          : 'Single sign-on is off (console.sso in config.yaml): invitations take effect once it is set.'}
      </p>
      {v.list.length > 0 ? (
        <table class="rows" id="invitations-table">
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Invited</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {v.list.map((i) => (
              <tr data-invitation={i.email}>
                <td>{i.email}</td>
                <td>{i.role}</td>
                <td>
                  {when(i.createdAt)}
                  <div class="muted small">by {i.invitedBy}</div>
                </td>
                <td>
                  <form method="post" action="/settings/invitations/revoke">
                    <Csrf s={s} />
                    <input type="hidden" name="email" value={i.email} />
                    <button type="submit" class="secondary">
                      Revoke
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form class="stack" method="post" action="/settings/invitations">
        <Csrf s={s} />
        <FormAlert errors={v.errors} />
        <label>
          Email
          <input type="email" name="email" required />
          <FieldError errors={v.errors} name="email" />
        </label>
        <label>
          Role at first sign-in
          <select name="role">
            <option value="viewer">viewer</option>
            <option value="editor">editor</option>
            <option value="admin">admin</option>
          </select>
          <FieldError errors={v.errors} name="role" />
        </label>
        <button type="submit">Invite</button>
      </form>
    </>
  );
}
