import type { HistoryView } from '../src/core/status-view.ts';
import { href, Layout, type Chrome } from './layout.tsx';
import { IncidentNotice, MaintenanceNotice } from './status-page.tsx';

/** The incident history page: incidents and completed maintenance of the past 90 days, newest first. */
export function HistoryPage(props: { c: Chrome; view: HistoryView }) {
  const { c, view } = props;
  const { t } = c;
  return (
    <Layout c={c} title={`${view.page.name} · ${t.incident_history}`} links={<a href={href(c, '/')}>{t.current_status}</a>} path="/history">
      <section class="card" aria-label={t.incident_history}>
        <h2>{t.incident_history}</h2>
        {view.incidents.length === 0 ? <p class="empty">{t.no_incidents}</p> : view.incidents.map((i) => <IncidentNotice c={c} incident={i} />)}
      </section>
      {view.maintenance.length > 0 ? (
        <section class="card" aria-label={t.completed_maintenance}>
          <h2>{t.completed_maintenance}</h2>
          {view.maintenance.map((w) => (
            <MaintenanceNotice c={c} window={w} />
          ))}
        </section>
      ) : null}
    </Layout>
  );
}
