import type { SubscriberChannel } from '../src/domain/subscriber.ts';
import { href, Layout, type Chrome } from './layout.tsx';
import type { UiKey } from './i18n/index.ts';

/** The password wall: a form posting to `<base>/login` with the page path to return to. */
export function PasswordPage(props: { c: Chrome; next: string; error?: 'wrong' | 'too_many'; password?: boolean; doors?: Array<{ href: string; label: string }> }) {
  const { c } = props;
  const { t } = c;
  const doors = props.doors ?? [];
  return (
    <Layout c={c} title={t.password_title}>
      <section class="card center">
        <h2>{t.password_title}</h2>
        {props.error ? <p class="msg err" role="alert">{props.error === 'wrong' ? t.wrong_password : t.too_many_attempts}</p> : null}
        {doors.map((d) => (
          <p>
            <a class="button" href={d.href} data-sign-in="">
              {d.label}
            </a>
          </p>
        ))}
        {props.password === false ? null : (
          <form class="box" method="post" action={href(c, '/login')}>
            <input type="hidden" name="next" value={props.next} />
            <label>
              {t.password_label}
              <input type="password" name="password" required autocomplete="current-password" autofocus />
            </label>
            <button type="submit">{t.password_button}</button>
          </form>
        )}
      </section>
    </Layout>
  );
}

/** A one-message page (closed SSO page, subscription outcomes, invalid links). */
export function MessagePage(props: { c: Chrome; title: string; message: string; error?: boolean; back?: boolean }) {
  const { c } = props;
  return (
    <Layout c={c} title={props.title}>
      <section class="card center">
        <h2>{props.title}</h2>
        <p class={`msg${props.error ? ' err' : ''}`} role={props.error ? 'alert' : 'status'}>
          {props.message}
        </p>
        {props.back ? (
          <p class="msg">
            <a href={href(c, '/')}>{c.t.current_status}</a>
          </p>
        ) : null}
      </section>
    </Layout>
  );
}

/** The subscribe form: a channel choice (those the page offers) and the address or webhook URL. */
export function SubscribePage(props: { c: Chrome; channels: SubscriberChannel[]; error?: string }) {
  const { c } = props;
  const { t } = c;
  return (
    <Layout c={c} title={t.subscribe} links={<a href={href(c, '/')}>{t.current_status}</a>} path="/subscribe">
      <section class="card center">
        <h2>{t.subscribe}</h2>
        {props.error ? <p class="msg err" role="alert">{props.error}</p> : null}
        <form class="box" method="post" action={href(c, '/subscribe')}>
          <div class="radios">
            {props.channels.map((ch, i) => (
              <label>
                <input type="radio" name="channel" value={ch} checked={i === 0} />
                {t[`channel_${ch}` as UiKey]}
              </label>
            ))}
          </div>
          <label>
            {[
              ...(props.channels.includes('email') ? [t.email_address] : []),
              ...(props.channels.includes('slack') || props.channels.includes('teams') ? [t.webhook_url] : []),
              ...(props.channels.includes('sms') ? [t.phone_number] : []),
            ].join(' / ')}
            <input type={props.channels.length === 1 && props.channels[0] === 'email' ? 'email' : props.channels.length === 1 && props.channels[0] === 'sms' ? 'tel' : 'text'} name="target" required maxlength={2048} />
          </label>
          <button type="submit">{t.subscribe_button}</button>
        </form>
      </section>
    </Layout>
  );
}

/** The form for the code texted to a new SMS subscriber (POST `/subscribe/verify`). */
export function SmsCodePage(props: { c: Chrome; subscriber: string; error?: string }) {
  const { c } = props;
  const { t } = c;
  return (
    <Layout c={c} title={t.sms_code_title}>
      <section class="card center">
        <h2>{t.sms_code_title}</h2>
        {props.error ? <p class="msg err" role="alert">{props.error}</p> : <p>{t.sms_code_text}</p>}
        <form class="box" method="post" action={href(c, '/subscribe/verify')}>
          <input type="hidden" name="s" value={props.subscriber} />
          <label>
            {t.sms_code_label}
            <input type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
          </label>
          <button type="submit">{t.sms_code_button}</button>
        </form>
      </section>
    </Layout>
  );
}

/** The page a confirm or unsubscribe link opens: one button that POSTs (mail scanners that follow links change nothing). */
export function LinkActionPage(props: { c: Chrome; purpose: 'confirm' | 'unsubscribe'; subscriber: string; token: string }) {
  const { c } = props;
  const { t } = c;
  const title = props.purpose === 'confirm' ? t.confirm_title : t.unsubscribe_title;
  return (
    <Layout c={c} title={title}>
      <section class="card center">
        <h2>{title}</h2>
        <form class="box" method="post" action={href(c, `/subscribe/${props.purpose}`)}>
          <input type="hidden" name="s" value={props.subscriber} />
          <input type="hidden" name="t" value={props.token} />
          <button type="submit">{props.purpose === 'confirm' ? t.confirm_button : t.unsubscribe_button}</button>
        </form>
      </section>
    </Layout>
  );
}
