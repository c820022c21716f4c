import type { Shell } from './model.ts';
import { Csrf, Layout } from './layout.tsx';
import { CONFIRM_FIELD, CONFIRM_VALUE } from './delete-button.tsx';

/** What a delete takes away, as the confirmation page lists it. */
export interface DeleteConfirmation {
  /** `monitor`, `healthcheck` or `status page`. */
  kind: string;
  name: string;
  /** The resource's path (`/monitors/mon_…`); the delete posts to `<base>/delete`, Cancel goes back here. */
  base: string;
  /** Sentences of what goes with it (history, outages, the status pages showing it…). */
  losses: string[];
  /** Offer "Pause instead" (monitors and healthchecks not paused yet): posts to `<base>/pause`. */
  pauseInstead: boolean;
  /** Where the navigation marks the current section (`/monitors`, `/statuspages`). */
  section: string;
}

/** The confirmation page (GET `<base>/delete`, or a POST that lacked the confirmation): what is lost, Delete, Cancel and maybe Pause instead. */
export function DeleteConfirmPage(props: { s: Shell; d: DeleteConfirmation }) {
  const { s, d } = props;
  return (
    <Layout s={{ ...s, path: d.section }} title={`Delete ${d.name}?`}>
      <h1>
        Delete the {d.kind} {d.name}?
      </h1>
      <div class="card" id="delete-losses">
        <p>Deleting it cannot be undone. Gone with it:</p>
        <ul>
          {d.losses.map((l) => (
            <li>{l}</li>
          ))}
        </ul>
        {d.pauseInstead ? <p class="muted">Pausing stops its checks and alerts and keeps all of this; resume it any time.</p> : null}
      </div>
      <div class="actions" id="delete-actions">
        <form method="post" action={`${d.base}/delete`}>
          <Csrf s={s} />
          <input type="hidden" name={CONFIRM_FIELD} value={CONFIRM_VALUE} />
          <button type="submit" class="danger">
            Delete {d.kind}
          </button>
        </form>
        {d.pauseInstead ? (
          <form method="post" action={`${d.base}/pause`}>
            <Csrf s={s} />
            <button type="submit" class="secondary">
              Pause instead
            </button>
          </form>
        ) : null}
        <a class="button secondary" href={d.base}>
          Cancel
        </a>
      </div>
    </Layout>
  );
}
