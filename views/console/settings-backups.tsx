import type { BackupStatus } from '../../src/domain/backup.ts';
import { ago, when } from './layout.tsx';

const mib = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/**
 * Settings → Backups (admins; issue 37 point 3): the schedule, the listed backups (newest first, size)
 * and this process's last runs, ok or failed with the reason. PostgreSQL: a pointer to pg_dump.
 */
export function BackupsSection(props: { b: BackupStatus; now: number }) {
  const { b, now } = props;
  return (
    <>
      <h2 id="backups">Backups</h2>
      <div class="card" id="backups-card">
        {b.every === 'postgres' ? (
          <p class="muted">The database is PostgreSQL: Pharos schedules no backups. Back it up with pg_dump (docs/operations.md “Backups and restore”).</p>
        ) : (
          <>
            <p class="muted">
              {b.every === 'off' ? 'Scheduled backups are off (backup.every: off).' : `Every ${b.every}, keeping ${b.keep}, in ${b.dir}.`} Each copy passes PRAGMA integrity_check before it is listed; restore one with pharos restore FILE (Pharos stopped).
            </p>
            {b.runs.length > 0 ? (
              <table class="rows" id="backup-runs">
                <thead>
                  <tr><th>Last backups</th><th>Result</th><th>Size</th></tr>
                </thead>
                <tbody>
                  {b.runs.map((r) => (
                    <tr class={r.ok ? '' : 'failed'}>
                      <td><time datetime={new Date(r.at).toISOString()} title={when(r.at)}>{ago(r.at, now)}</time></td>
                      <td>{r.ok ? `ok (${r.name}, ${r.ms} ms)` : `failed: ${r.error}`}</td>
                      <td>{r.bytes === null ? '—' : mib(r.bytes)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {b.files.length > 0 ? (
              <table class="rows" id="backup-files">
                <thead>
                  <tr><th>Backup file</th><th>Taken</th><th>Size</th></tr>
                </thead>
                <tbody>
                  {b.files.map((f) => (
                    <tr>
                      <td>{f.name}</td>
                      <td><time datetime={new Date(f.at).toISOString()} title={when(f.at)}>{ago(f.at, now)}</time></td>
                      <td>{mib(f.bytes)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p id="backup-files">No backup yet.</p>
            )}
          </>
        )}
      </div>
    </>
  );
}
