import type { Store } from '../store/index.ts';

/**
 * True when `uuid` names something a status page can show or an incident can affect: a monitor,
 * a healthcheck (its `tok_` or `hc_` uuid) or a component (CONTRACT.md "Components").
 */
export function isServiceUuid(store: Store, uuid: string): boolean {
  return (
    store.monitors.get(uuid) !== undefined ||
    store.healthchecks.get(uuid) !== undefined ||
    store.healthchecks.getByPublicUuid(uuid) !== undefined ||
    store.incidents.components.get(uuid) !== undefined
  );
}
