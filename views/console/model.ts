import type { Role } from '../../src/domain/user.ts';
import type { Theme } from './theme.tsx';

/** What every signed-in screen gets: the CSP nonce, the CSRF token of its forms, the current path and the person. */
export interface Shell {
  nonce: string;
  csrf: string;
  /** Path of the screen (marks the current nav item). */
  path: string;
  user: { name: string; email: string; role: Role };
  /** The theme chosen in the bar (cookie `pharos_theme`); absent or `auto`: the browser's preference. */
  theme?: Theme;
}

/** Problems of a form: per field (shown beside it) and the whole message of the API. */
export interface FormErrors {
  message: string;
  fields: Record<string, string>;
}

/** A form's values as strings, as the person typed them (re-shown after an error). */
export type FormValues = Record<string, string | string[] | undefined>;

/** A posted form's single value of `name` (the first form re-rendered after an error), or `fallback`. */
export const formValue = (f: FormValues, name: string, fallback = ''): string => (typeof f[name] === 'string' ? (f[name] as string) : fallback);

/** Every posted value of `name` (ticked checkboxes, a multi-select): one value is a list of one. */
export const formList = (f: FormValues, name: string): string[] => (Array.isArray(f[name]) ? (f[name] as string[]) : typeof f[name] === 'string' ? [f[name] as string] : []);

/** True when the person may change things (admin or editor). */
export const canWrite = (s: Shell): boolean => s.user.role !== 'viewer';
/** True for admins (users and API tokens). */
export const isAdmin = (s: Shell): boolean => s.user.role === 'admin';

/**
 * How the console edits one protocol field (derived from the field's zod schema in the protocol
 * registry): `text`, `textarea`, `number`, `checkbox`, `select` (an enum), `numbers` (a list of
 * numbers, "30, 14, 7, 1") or `lines` (a list, one item per line in the syntax of `hint`).
 */
export interface ProtocolFieldForm {
  /** The API field name, e.g. `dns_record_type`; the form input is named `<protocol>.<name>`. */
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'number' | 'checkbox' | 'select' | 'numbers' | 'lines';
  options?: string[];
  /** True when the field may be left empty (null). */
  optional: boolean;
  hint?: string;
}

/** One protocol's part of the monitor form: a fieldset of its fields, and what its `url` means. */
export interface ProtocolForm {
  protocol: string;
  label: string;
  urlMeaning: string;
  fields: ProtocolFieldForm[];
}

/** A monitor's protocol settings in words (monitor page): label and value. */
export interface SettingLine {
  label: string;
  value: string;
}
