import type { Invitation, Role } from '../domain/user.ts';
import type { Db } from './db.ts';

interface InvitationRow {
  email: string;
  role: Role;
  invited_by: string;
  created_at: number;
}

const toInvitation = (r: InvitationRow): Invitation => ({ email: r.email, role: r.role, invitedBy: r.invited_by, createdAt: r.created_at });

/** Console invitations (issue 19): an email (lower-case) and the role its first single sign-on gets. */
export function invitationsStore(db: Db) {
  const cols = 'email, role, invited_by, created_at';
  const all = db.prepare<[], InvitationRow>(`SELECT ${cols} FROM console_invitations ORDER BY created_at, email`);
  const one = db.prepare<[string], InvitationRow>(`SELECT ${cols} FROM console_invitations WHERE email = ?`);
  const upsert = db.prepare(
    `INSERT INTO console_invitations(email, role, invited_by, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, created_at = excluded.created_at`,
  );
  const del = db.prepare('DELETE FROM console_invitations WHERE email = ?');
  return {
    list: (): Invitation[] => all.all().map(toInvitation),
    get: (email: string): Invitation | undefined => {
      const r = one.get(email);
      return r && toInvitation(r);
    },
    /** Creates the invitation, or replaces the role of an existing one. */
    put: (i: Invitation): void => void upsert.run(i.email, i.role, i.invitedBy, i.createdAt),
    /** @returns true when an invitation was deleted */
    delete: (email: string): boolean => del.run(email).changes === 1,
  };
}

/** The invitations store's interface. */
export type InvitationsStore = ReturnType<typeof invitationsStore>;
