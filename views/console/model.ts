import type { Role } from '../../src/domain/user.ts';

/** What every signed-in screen gets: the CSP nonce, the CSRF token of its forms, the current path and the person. */
export interface Shell {
  nonce: string;
  csrf: string;
  /** Path of the screen (marks the current nav item). */
  path: string;
  user: { name: string; email: string; role: Role };
}

/** Problems of a form: per field (shown beside it) and the whole message of the API. */
export interface FormErrors {
  message: string;
  fields: Record<string, string>;
}

/** A form's values as strings, as the person typed them (re-shown after an error). */
export type FormValues = Record<string, string | string[] | undefined>;

/** True when the person may change things (admin or editor). */
export const canWrite = (s: Shell): boolean => s.user.role !== 'viewer';
/** True for admins (users and API tokens). */
export const isAdmin = (s: Shell): boolean => s.user.role === 'admin';
