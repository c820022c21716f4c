import type { OutageEvent } from '../../src/domain/outage.ts';
import type { OutageRecord } from '../../src/domain/outage.ts';
import type { AlertRow } from '../../src/domain/alert.ts';
import type { Shell } from './model.ts';
import { canWrite } from './model.ts';
import { Csrf, Layout, ago, when } from './layout.tsx';

const stateOf = (o: OutageRecord) => (o.endAt !== null ? 'resolved' : o.acknowledgedAt !== null ? 'acknowledged' : 'ongoing');
const subjectOf = (o: OutageRecord) => o.monitor?.name ?? o.healthcheck?.name ?? 'Manual outage';

/**
 * A duration in the console's words: `2d 3h 5min`, `4min 12s`, `6s` (seconds shown under an hour).
 * The live script's `fmtDuration` (src/http/console/live-client.ts) repeats it for ticking cells; a
 * unit test holds the two equal. @param ms duration in milliseconds (negatives count as 0)
 */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const parts: string[] = [];
  const d = Math.floor(s / 86_400), h = Math.floor((s % 86_400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d) parts.push(`${d}d`);
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}min`);
  if (!d && !h) parts.push(`${s % 60}s`);
  return parts.join(' ');
}

/** One line of the inbox; also sent alone over SSE (id `outage-<uuid>`). */
export function OutageLine(props: { o: OutageRecord; now: number }) {
  const { o } = props;
  const st = stateOf(o);
  return (
    <tr id={`outage-${o.uuid}`} data-state={st} data-subject={o.monitor?.uuid ?? o.healthcheck?.uuid}>
      <td>
        <span class="status" data-status={st}>
          {st}
        </span>
      </td>
      <td>
        <a href={`/outages/${o.uuid}`}>
          INC-{o.incidentNumber} · {subjectOf(o)}
        </a>
        <div class="muted small">{o.description}</div>
      </td>
      {/* Ticking cells (live script): the elapsed time at render, in ms; an ongoing outage's duration grows. */}
      <td class="num" data-tick={o.endAt === null ? 'duration' : undefined} data-ms={o.endAt === null ? props.now - o.startAt : undefined}>
        {duration((o.endAt ?? props.now) - o.startAt)}
      </td>
      <td class="num hide-sm" data-tick="ago" data-ms={props.now - o.startAt}>
        {ago(o.startAt, props.now)}
      </td>
    </tr>
  );
}

/**
 * A table of outage lines. `outages` says which lines the live script puts in it (`open`, `resolved`,
 * or `of:<monitor or healthcheck uuid>`), `insert` whether it adds new ones (not on older pages); the
 * empty message is always there, hidden while the table has rows, so the script can show or hide it.
 */
export function OutageTable(props: { id: string; rows: OutageRecord[]; now: number; empty: string; outages: string; insert: boolean; head?: boolean }) {
  return (
    <div class="card">
      <table class="rows" id={props.id} data-outages={props.outages} data-insert={props.insert ? '' : undefined}>
        {props.head === false ? null : (
          <thead>
            <tr>
              <th>State</th>
              <th>Outage</th>
              <th>Duration</th>
              <th class="hide-sm">Started</th>
            </tr>
          </thead>
        )}
        <tbody>
          {props.rows.map((o) => (
            <OutageLine o={o} now={props.now} />
          ))}
        </tbody>
      </table>
      <p class="muted" data-empty-for={props.id} hidden={props.rows.length > 0}>
        {props.empty}
      </p>
    </div>
  );
}

/**
 * The outages inbox: ongoing first, then the newest resolved ones (live: lines move from Ongoing to
 * Resolved, new ones are added, durations tick). Ongoing outages are listed on the first page only.
 */
export function InboxPage(props: { s: Shell; ongoing: OutageRecord[]; resolved: OutageRecord[]; now: number; page: number; hasNext: boolean }) {
  return (
    <Layout s={props.s} title="Outages" refresh live>
      <h1>Outages</h1>
      {props.page === 0 ? (
        <>
          <h2>Ongoing</h2>
          <OutageTable id="ongoing" rows={props.ongoing} now={props.now} empty="No ongoing outage." outages="open" insert />
        </>
      ) : (
        <p class="muted">
          Ongoing outages are on the <a href="/outages">first page</a>.
        </p>
      )}
      <h2>Resolved</h2>
      <OutageTable id="resolved" rows={props.resolved} now={props.now} empty="No resolved outage yet." outages="resolved" insert={props.page === 0} />
      <p>
        {props.page > 0 ? <a href={`/outages?page=${props.page - 1}`}>Newer</a> : null} {props.hasNext ? <a href={`/outages?page=${props.page + 1}`}>Older</a> : null}
      </p>
    </Layout>
  );
}

const EVENT_WORDS: Record<string, string> = {};

/**
 * The live parts of an outage's page (issue 33 point 3): the state badge in its heading
 * (`#outage-badges`) and its facts (`#outage-facts`), each with `data-for` naming the outage. The live
 * hub sends them as a `state` message whenever the outage changes (src/http/console/live.ts); the
 * live script swaps them in on that outage's page only. An ongoing duration ticks in the browser.
 */
export function OutageState(props: { o: OutageRecord; now: number; part?: 'badges' | 'facts' }) {
  const { o } = props;
  const st = stateOf(o);
  const badges = (
    <span id="outage-badges" data-for={o.uuid}>
      <span class="status" data-status={st} id="outage-state">
        {st}
      </span>
    </span>
  );
  const facts = (
    <dl class="props" id="outage-facts" data-for={o.uuid}>
      <dt>Description</dt>
      <dd>{o.description}</dd>
      <dt>Started</dt>
      <dd>
        {when(o.startAt)} (<span data-tick="ago" data-ms={props.now - o.startAt}>{ago(o.startAt, props.now)}</span>)
      </dd>
      <dt>Resolved</dt>
      <dd>{when(o.endAt)}</dd>
      <dt>Duration</dt>
      <dd data-tick={o.endAt === null ? 'duration' : undefined} data-ms={o.endAt === null ? props.now - o.startAt : undefined}>
        {duration((o.endAt ?? props.now) - o.startAt)}
      </dd>
      <dt>Detected from</dt>
      <dd>
        {o.detectedLocation}
        {o.confirmedLocations ? `, confirmed by ${o.confirmedLocations}` : ''}
      </dd>
      <dt>Status code</dt>
      <dd>{o.statusCode || '—'}</dd>
      <dt>Acknowledged</dt>
      <dd>{o.acknowledgedAt ? `${when(o.acknowledgedAt)} by ${o.acknowledgedByUser?.name ?? 'someone'}` : 'no'}</dd>
      {o.monitor ? (
        <>
          <dt>Monitor</dt>
          <dd>
            <a href={`/monitors/${o.monitor.uuid}`}>{o.monitor.name}</a>
          </dd>
        </>
      ) : null}
      {o.healthcheck ? (
        <>
          <dt>Healthcheck</dt>
          <dd>
            <a href={`/healthchecks/${o.healthcheck.uuid}`}>{o.healthcheck.name}</a>
          </dd>
        </>
      ) : null}
    </dl>
  );
  if (props.part === 'badges') return badges;
  if (props.part === 'facts') return facts;
  return (
    <>
      {badges}
      {facts}
    </>
  );
}

/** One outage: what, since when, the actions (acknowledge, unacknowledge, resolve, escalate, each with an optional message) and its timeline. */
export function OutagePage(props: { s: Shell; o: OutageRecord; timeline: OutageEvent[]; users: Record<string, string>; alerts: AlertRow[]; now: number; error?: string | undefined; canEscalate: boolean }) {
  const { s, o } = props;
  const st = stateOf(o);
  const act = (action: string, label: string, cls = '') => (
    <button type="submit" name="action" value={action} class={cls}>
      {label}
    </button>
  );
  return (
    <Layout s={s} title={`INC-${o.incidentNumber}`}>
      <h1>
        INC-{o.incidentNumber} · {subjectOf(o)} <OutageState o={o} now={props.now} part="badges" />
      </h1>
      {props.error ? (
        <p class="alert" role="alert">
          {props.error}
        </p>
      ) : null}
      <div class="card">
        <OutageState o={o} now={props.now} part="facts" />
      </div>
      {canWrite(s) && st !== 'resolved' ? (
        <form class="card stack" method="post" action={`/outages/${o.uuid}/act`} id="outage-actions">
          <Csrf s={s} />
          <label>
            Message (optional, kept on the timeline)
            <input type="text" name="message" maxlength={2000} />
          </label>
          <div class="actions">
            {st === 'ongoing' ? act('acknowledge', 'Acknowledge') : act('unacknowledge', 'Unacknowledge', 'secondary')}
            {act('resolve', 'Resolve', 'secondary')}
            {props.canEscalate ? act('escalate', 'Escalate', 'danger') : null}
          </div>
          {o.kind === 'monitor' ? (
            <p class="muted small" id="resolve-hint">
              The check still fails: Resolve closes this outage, and a new outage opens at the next failed confirmation (a passing check sets the monitor up).
            </p>
          ) : o.kind === 'healthcheck' ? (
            <p class="muted small" id="resolve-hint">
              The job still fails: Resolve closes this outage, and a new outage opens at the next missed deadline or fail signal (the deadline counted from now; a success ping sets the healthcheck up).
            </p>
          ) : null}
        </form>
      ) : null}
      <h2>Timeline</h2>
      <div class="card">
        <ol class="timeline" id="timeline">
          {props.timeline.map((e) => (
            <li data-type={e.type}>
              <span class="muted small">{when(e.at)}</span> <b>{EVENT_WORDS[e.type] ?? e.type.replaceAll('_', ' ')}</b>
              {e.userUuid ? ` by ${props.users[e.userUuid] ?? 'a user'}` : ''}
              {e.message ? <div>{e.message}</div> : null}
            </li>
          ))}
        </ol>
        {props.timeline.length === 0 ? <p class="muted">Nothing yet.</p> : null}
      </div>
      <h2>Alerts</h2>
      <div class="card">
        {props.alerts.length === 0 ? (
          <p class="muted">No alert was sent for this outage.</p>
        ) : (
          <table class="rows" id="alerts">
            <thead>
              <tr>
                <th>Channel</th>
                <th>Kind</th>
                <th>Queued</th>
                <th>Result</th>
              </tr>
            </thead>
            <tbody>
              {props.alerts.map((a) => (
                <tr>
                  <td>{a.channel}</td>
                  <td>{a.kind}</td>
                  <td class="small">{when(a.createdAt)}</td>
                  <td class="small">{a.deliveredAt ? `delivered ${when(a.deliveredAt)}` : a.failedAt ? `failed: ${a.lastError ?? ''}` : `pending (${a.attempts} tries${a.lastError ? `, last: ${a.lastError}` : ''})`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Layout>
  );
}
