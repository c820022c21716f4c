import { notFound } from '../lib/errors.ts';
import { OUTAGES_PER_PAGE, type OutageFilter } from '../domain/outage.ts';
import type { OutageRecord, Store } from '../store/index.ts';

export type { OutageRecord } from '../store/index.ts';

/** One page of outages as GET /v2/outages returns it (API.md §4.4). */
export interface OutagePage {
  outages: OutageRecord[];
  hasNextPage: boolean;
  total: number;
  ongoingCount: number;
  page: number;
  resultsPerPage: number;
}

/** Outage reads (the outage issue adds manual outages and the action endpoints). */
export function outagesService(deps: { store: Store }) {
  const { store } = deps;
  return {
    /**
     * A page (0-indexed) of outages, newest first, `OUTAGES_PER_PAGE` per page.
     * `total` counts the outages matching the filter; `ongoingCount` counts all ongoing outages.
     */
    list(filter: OutageFilter, page: number): OutagePage {
      const { items, total } = store.outages.list(filter, OUTAGES_PER_PAGE, page * OUTAGES_PER_PAGE);
      return {
        outages: items,
        hasNextPage: (page + 1) * OUTAGES_PER_PAGE < total,
        total,
        ongoingCount: store.outages.ongoingCount(),
        page,
        resultsPerPage: OUTAGES_PER_PAGE,
      };
    },
    /** @throws AppError 404 `outages.not_found` */
    get(uuid: string): OutageRecord {
      const o = store.outages.get(uuid);
      if (!o) throw notFound('outages', 'Outage');
      return o;
    },
  };
}

/** The outages service's interface. */
export type OutagesService = ReturnType<typeof outagesService>;
