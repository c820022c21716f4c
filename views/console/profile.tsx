import { CONTACT_KINDS, type ContactKind, type ContactMethod, type NotificationRule, type TeamMemberRow } from '../../src/domain/people.ts';
import type { FormErrors, Shell } from './model.ts';
import { Csrf, FieldError, FormAlert, Layout, when } from './layout.tsx';

/** What the Profile page shows: a person's details, contact methods and notification rules. */
export interface ProfileView {
  member: TeamMemberRow;
  /** True when it is the signed-in person's own profile (else an admin edits someone else's). */
  own: boolean;
  /** Where the page's forms post: `/profile` or `/profile/<uuid>`. */
  base: string;
  methods: ContactMethod[];
  rules: NotificationRule[];
  /** A line of success ("We sent a code…"), or undefined. */
  notice?: string | undefined;
  /** Errors of the form that was posted, by form name (`details`, `add`, `verify:<cm>`, `rules`). */
  errors?: { form: string; errors: FormErrors } | undefined;
}

const KIND_LABEL: Record<ContactKind, string> = { email: 'Email', sms: 'SMS (Twilio)', voice: 'Voice call (Twilio)', ntfy: 'ntfy topic', pushover: 'Pushover user key', telegram: 'Telegram chat id', console: 'This console (browser notification)' };
/** The Profile page's rules (one line in style.ts): methods as cards, their small forms side by side, wrapping on a phone. */
export const PROFILE_CSS = `
.contact-methods{list-style:none;padding:0;display:grid;gap:.6rem;max-width:40rem}
.contact-methods>li{border:1px solid var(--line);background:var(--card);border-radius:6px;padding:.6rem .8rem}
.contact-methods form.inline{display:inline-flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:.5rem .5rem 0 0}
.contact-methods form.inline input{width:7rem}
.row-forms{display:flex;flex-wrap:wrap;gap:0 .5rem}
ol.rules{padding-left:1.2rem;margin:0;display:grid;gap:.5rem}
ol.rules input{width:5rem}
[data-allow-notifications][hidden]{display:none}
`;

/** Rows of the rules form: the rules plus this many empty ones. */
const SPARE_RULES = 2;

/**
 * Profile (issue 34 point 1): the person's name and phone, their contact methods (added unverified, a
 * 6-digit code sent to each, entered here to verify), and their notification rules in order
 * ("method after N minutes if not acknowledged"). Plain forms: everything works without JavaScript.
 */
export function ProfilePage(props: { s: Shell; v: ProfileView }) {
  const { s, v } = props;
  const err = (form: string) => (v.errors?.form === form ? v.errors.errors : undefined);
  const methodName = (m: ContactMethod) => `${KIND_LABEL[m.kind]} ${m.hint}${m.label ? ` (${m.label})` : ''}`;
  const verified = v.methods.filter((m) => m.verifiedAt !== null);
  const rows: Array<NotificationRule | null> = [...v.rules, ...Array.from({ length: SPARE_RULES }, () => null)];
  return (
    <Layout s={s} title={v.own ? 'Profile' : `Profile of ${v.member.name}`}>
      <h1>{v.own ? 'Your profile' : `Profile of ${v.member.name}`}</h1>
      {v.notice ? (
        <p class="notice" role="status" id="profile-notice">
          {v.notice}
        </p>
      ) : null}

      <h2>Details</h2>
      <form class="stack" method="post" action={`${v.base}/details`} id="profile-details">
        <Csrf s={s} />
        <FormAlert errors={err('details')} />
        <label>
          Name
          <input name="name" value={v.member.name} required maxlength={100} autocomplete="name" />
          <FieldError errors={err('details')} name="name" />
        </label>
        <label>
          Phone (with country code)
          <input name="phone" type="tel" value={v.member.phone ?? ''} placeholder="+15551234567" autocomplete="tel" />
          <FieldError errors={err('details')} name="phone" />
        </label>
        <button type="submit">Save details</button>
      </form>

      <h2>Contact methods</h2>
      <p class="muted small">Pages go only to verified methods. A code is sent to each new method; enter it here within 10 minutes.</p>
      <p class="muted small" id="console-notifications">
        A <b>console</b> method (no code: adding it here verifies it) pages you in every console tab you have open.{' '}
        <button type="button" class="secondary" data-allow-notifications hidden>
          Allow notifications
        </button>
      </p>
      {v.methods.length > 0 ? (
        <ul class="contact-methods" id="contact-methods">
          {v.methods.map((m) => (
            <li data-method={m.uuid} data-kind={m.kind}>
              <strong>{methodName(m)}</strong> <span class="status" data-status={m.verifiedAt !== null ? 'up' : 'pending'}>
                {m.verifiedAt !== null ? 'verified' : 'unverified'}
              </span>
              {m.verifiedAt !== null ? <span class="muted small"> since {when(m.verifiedAt)}</span> : null}
              {m.verifiedAt === null ? (
                <div class="row-forms">
                  <form method="post" action={`${v.base}/methods/${m.uuid}/verify`} class="inline">
                    <Csrf s={s} />
                    <FormAlert errors={err(`verify:${m.uuid}`)} />
                    <label>
                      Code
                      <input name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength={6} autocomplete="one-time-code" required />
                    </label>
                    <button type="submit">Verify</button>
                  </form>
                  <form method="post" action={`${v.base}/methods/${m.uuid}/send-code`} class="inline">
                    <Csrf s={s} />
                    <button type="submit" class="secondary">
                      Send a new code
                    </button>
                  </form>
                </div>
              ) : null}
              <form method="post" action={`${v.base}/methods/${m.uuid}/delete`} class="inline">
                <Csrf s={s} />
                <button type="submit" class="secondary">
                  Remove
                </button>
              </form>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No contact methods yet.</p>
      )}
      <h3>Add a contact method</h3>
      <form class="stack" method="post" action={`${v.base}/methods`} id="add-method">
        <Csrf s={s} />
        <FormAlert errors={err('add')} />
        <label>
          Kind
          <select name="kind">
            {CONTACT_KINDS.map((k) => (
              <option value={k}>{KIND_LABEL[k]}</option>
            ))}
          </select>
        </label>
        <label>
          Address (email, phone number, topic, user key or chat id)
          <input name="address" required maxlength={254} />
          <FieldError errors={err('add')} name="address" />
        </label>
        <label>
          Label (optional)
          <input name="label" maxlength={100} placeholder="work phone" />
        </label>
        <button type="submit">Add and send a code</button>
      </form>

      <h2>Notification rules</h2>
      <p class="muted small">
        In order: each row pages through a method that many minutes after the page, if nobody acknowledged it. With no rules, every verified method is paged at once.
      </p>
      {verified.length === 0 ? (
        <p class="muted">Verify a contact method first.</p>
      ) : (
        <form class="stack" method="post" action={`${v.base}/rules`} id="rules">
          <Csrf s={s} />
          <FormAlert errors={err('rules')} />
          <ol class="rules">
            {rows.map((r, i) => (
              <li>
                <label>
                  Method
                  <select name={`method_${i}`}>
                    <option value="">—</option>
                    {verified.map((m) => (
                      <option value={m.uuid} selected={r?.methodUuid === m.uuid}>
                        {methodName(m)}
                      </option>
                    ))}
                  </select>
                </label>{' '}
                <label>
                  after (minutes)
                  <input name={`delay_${i}`} type="number" min={0} max={1440} value={r ? String(r.delayMinutes) : ''} inputmode="numeric" />
                </label>
              </li>
            ))}
          </ol>
          <button type="submit">Save rules</button>
        </form>
      )}
    </Layout>
  );
}
