import type { HistoryView } from '../src/core/status-view.ts';
import { Card, href, Layout, type Chrome } from './layout.tsx';
import { IncidentNotice, MaintenanceNotice } from './status-page.tsx';

/** The incident history page: incidents and completed maintenance of the past 90 days, newest first. */
export function HistoryPage(props: { c: Chrome; view: HistoryView }) {
  const { c, view } = props;
  const { t } = c;
  return (
    <Layout c={c} title={`${view.page.name} · ${t.incident_history}`} links={<a href={href(c, '/')}>{t.current_status}</a>} path="/history">
      <Card title={t.incident_history}>
        {view.incidents.length === 0 ? <p class="empty">{t.no_incidents}</p> : view.incidents.map((i) => <IncidentNotice c={c} incident={i} />)}
      </Card>
      {view.maintenance.length > 0 ? (
        <Card title={t.completed_maintenance}>
          {view.maintenance.map((w) => (
            <MaintenanceNotice c={c} window={w} />
          ))}
        </Card>
      ) : null}
    </Layout>
  );
}
