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

/**
 * The uuid a status-page section's reference names: `ref` itself when {@link isServiceUuid}, or the
 * monitor whose numeric `id` it is (digits only: the Terraform provider sends monitors' numeric ids
 * in sections, `translateSectionsUUIDsToNumericIDs` in its `statuspage_id_translation.go`);
 * undefined when it names nothing.
 */
export function serviceUuidOf(store: Store, ref: string): string | undefined {
  if (/^[0-9]{1,15}$/.test(ref)) return store.monitors.getById(Number(ref))?.uuid;
  return isServiceUuid(store, ref) ? ref : undefined;
}
