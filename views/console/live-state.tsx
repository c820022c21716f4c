import type { Healthcheck } from '../../src/domain/healthcheck.ts';
import type { Monitor } from '../../src/domain/monitor.ts';
import type { OutageRecord } from '../../src/domain/outage.ts';
import { ago } from './layout.tsx';
import { duration } from './outages.tsx';

/**
 * The live parts of a monitor's or healthcheck's page (issue 33 point 3). Each is an element with a
 * fixed id and `data-for` naming its monitor or healthcheck; the page renders them, and the live hub
 * (src/http/console/live.ts) sends them again, rendered once per change, as one `state` message that
 * the live script swaps in where the id and `data-for` match (so another monitor's change never
 * lands on this page). Ticking cells carry `data-tick` and the elapsed time at render (`data-ms`).
 */

/** What a monitor's live parts show: its status now, last check (epoch ms or null) and its open outage. */
export interface MonitorNowModel {
  m: Monitor;
  /** The status the overview shows (`pending` before the first check, `paused`, `up`, `down`). */
  status: string;
  lastAt: number | null;
  current: OutageRecord | null;
  now: number;
}

/** The badges in a monitor page's heading (`#monitor-badges`): its status and "Degraded performance". */
export function MonitorBadges(props: { m: Monitor; status: string }) {
  const { m } = props;
  return (
    <span id="monitor-badges" data-for={m.uuid}>
      <span class="status" data-status={props.status} id="monitor-status">
        {props.status}
      </span>
      {m.degraded && !m.paused && m.status === 'up' ? (
        <>
          {' '}
          <span class="status" data-status="degraded" id="monitor-degraded">
            Degraded performance
          </span>
        </>
      ) : null}
    </span>
  );
}

/** A monitor's "Now" card (`#monitor-now`): status, last check, current outage. */
export function MonitorNow(props: MonitorNowModel) {
  return <Now id="monitor-now" uuid={props.m.uuid} status={props.status} last="Last check" lastAt={props.lastAt} current={props.current} now={props.now} />;
}

/** Both live parts of a monitor's page, as the hub sends them. */
export function MonitorState(props: MonitorNowModel) {
  return (
    <>
      <MonitorBadges m={props.m} status={props.status} />
      <MonitorNow {...props} />
    </>
  );
}

/**
 * A healthcheck's heading badge (`#healthcheck-badges`) and "Now" card (`#healthcheck-now`: status,
 * last ping); `part` renders one of them alone (the page places them apart). `status` is the one
 * its overview row shows.
 */
export function HealthcheckState(props: { h: Healthcheck; status: string; now: number; part?: 'badges' | 'now' }) {
  const { h, status } = props;
  const badges = (
    <span id="healthcheck-badges" data-for={h.uuid}>
      <span class="status" data-status={status} id="healthcheck-status">
        {status}
      </span>
    </span>
  );
  const now = <Now id="healthcheck-now" uuid={h.uuid} status={status} last="Last ping" lastAt={h.lastPingAt} current={null} now={props.now} />;
  if (props.part === 'badges') return badges;
  if (props.part === 'now') return now;
  return (
    <>
      {badges}
      {now}
    </>
  );
}

function Now(props: { id: string; uuid: string; status: string; last: string; lastAt: number | null; current: OutageRecord | null; now: number }) {
  const o = props.current;
  return (
    <dl class="props" id={props.id} data-for={props.uuid}>
      <dt>Status now</dt>
      <dd>
        <span class="status" data-status={props.status}>
          {props.status}
        </span>
      </dd>
      <dt>{props.last}</dt>
      <dd data-tick={props.lastAt === null ? undefined : 'ago'} data-ms={props.lastAt === null ? undefined : props.now - props.lastAt}>
        {ago(props.lastAt, props.now)}
      </dd>
      {props.id === 'monitor-now' ? (
        <>
          <dt>Current outage</dt>
          <dd data-current-outage={o ? o.uuid : ''}>
            {o ? (
              <>
                <a href={`/outages/${o.uuid}`}>INC-{o.incidentNumber}</a>
                {o.acknowledgedAt !== null ? ' (acknowledged)' : ''} for <span data-tick="duration" data-ms={props.now - o.startAt}>{duration(props.now - o.startAt)}</span>
              </>
            ) : (
              'none'
            )}
          </dd>
        </>
      ) : null}
    </dl>
  );
}
