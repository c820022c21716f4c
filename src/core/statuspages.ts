import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, notFound } from '../lib/errors.ts';
import { hashPassword } from '../lib/password.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { resolveStatuspage, subdomainFrom, type Statuspage, type StatuspageBodyInput, type StatuspagePatchInput } from '../domain/statuspage.ts';
import type { Store } from '../store/index.ts';
import type { EventBus } from './events.ts';
import { isServiceUuid } from './references.ts';

/** Status pages per list page (CONTRACT.md "Status pages (v2)"). */
export const STATUSPAGES_PER_PAGE = 20;

/**
 * Status page use cases (API.md §4.7, CONTRACT.md "Status pages (v2)"): validation of every field,
 * subdomains unique (a taken one → 409; none given → made from the name, with a number added when
 * taken), passwords stored only as scrypt hashes. The public pages come with the status-page issue.
 */
export function statuspagesService(deps: { store: Store; clock: Clock; bus?: EventBus }) {
  const { store, clock, bus } = deps;
  /**
   * Lookups of public requests (`bySubdomain`, `byHost`), kept 1 s and dropped on every write here
   * (the only writer of status pages), so a crowd on a page does not parse its row per request.
   * Bounded: cleared when it holds 1,000 keys (any Host header is a key).
   */
  const memo = new Map<string, { page: Statuspage | undefined; at: number }>();
  const remembered = (key: string, load: () => Statuspage | undefined): Statuspage | undefined => {
    const now = clock.now();
    const hit = memo.get(key);
    if (hit && now - hit.at < 1_000 && now >= hit.at) return hit.page;
    const page = load();
    if (memo.size >= 1_000) memo.clear();
    memo.set(key, { page, at: now });
    return page;
  };
  /** After a write's commit: the page's public renders are stale. */
  const changed = <T extends { uuid: string }>(s: T): T => {
    memo.clear();
    bus?.emit('statuspage.content', { kind: 'statuspage', uuid: s.uuid });
    return s;
  };
  const mustGet = (uuid: string): Statuspage => {
    const s = store.statuspages.get(uuid);
    if (!s) throw notFound('statuspages', 'Status page');
    return s;
  };
  const knownService = (uuid: string) => isServiceUuid(store, uuid);
  const knownConnection = (uuid: string) => store.ssoConnections.get(uuid) !== undefined;
  const freeSubdomain = (wanted: string | undefined, name: string, self: string | null): string => {
    const taken = (s: string) => {
      const other = store.statuspages.bySubdomain(s);
      return other !== undefined && other.uuid !== self;
    };
    if (wanted) {
      if (taken(wanted)) throw conflict('statuspages.subdomain_taken', `subdomain "${wanted}" is taken`);
      return wanted;
    }
    const base = subdomainFrom(name);
    let candidate = base;
    for (let i = 2; taken(candidate); i++) candidate = `${base.slice(0, 58)}-${i}`;
    return candidate;
  };
  const checkHostname = (hostname: string | null, self: string | null) => {
    const other = hostname ? store.statuspages.byHostname(hostname) : undefined;
    if (other && other.uuid !== self) throw conflict('statuspages.hostname_taken', `hostname "${hostname}" is used by another status page`);
  };
  /** Stores a resolved new page in one transaction (subdomain made free, hostname unique). */
  const insertPage = (r: ReturnType<typeof resolveStatuspage>, passwordHash: string | null): Statuspage =>
    store.tx((tx) => {
      const subdomain = freeSubdomain(r.subdomain, r.name, null);
      checkHostname(r.hostname, null);
      return tx.statuspages.insert(newId(ID_PREFIX.statuspage), { ...r, subdomain, passwordHash }, clock.now());
    });

  return {
    /** A page (0-indexed) of status pages; `search` keeps those whose name, subdomain or hostname contains it. */
    list(page: number, search?: string) {
      const { items, total } = store.statuspages.list(STATUSPAGES_PER_PAGE, page * STATUSPAGES_PER_PAGE, search);
      return { statuspages: items, hasNextPage: (page + 1) * STATUSPAGES_PER_PAGE < total, total, page, resultsPerPage: STATUSPAGES_PER_PAGE };
    },
    /** @throws AppError 404 `statuspages.not_found` */
    get: mustGet,
    /** The page at `subdomain` (any case), or undefined. */
    bySubdomain: (subdomain: string): Statuspage | undefined => remembered(`s:${subdomain.toLowerCase()}`, () => store.statuspages.bySubdomain(subdomain.toLowerCase())),
    /**
     * The page a request's Host names: its custom `hostname`, or `<subdomain>.<hostedDomain>`
     * (one label). Port and case are ignored. Undefined for any other host.
     */
    byHost(host: string | undefined, hostedDomain: string): Statuspage | undefined {
      if (!host) return undefined;
      const h = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
      return remembered(`h:${hostedDomain}:${h}`, () => {
        const custom = store.statuspages.byHostname(h);
        if (custom) return custom;
        const suffix = `.${hostedDomain.toLowerCase()}`;
        if (!h.endsWith(suffix)) return undefined;
        const sub = h.slice(0, -suffix.length);
        return sub && !sub.includes('.') ? store.statuspages.bySubdomain(sub) : undefined;
      });
    },
    /** True when a status page uuid exists (maintenance windows, incidents). */
    exists: (uuid: string): boolean => store.statuspages.get(uuid) !== undefined,
    /** The name a page shows for a service uuid (monitor, healthcheck or component), or undefined. */
    serviceName(uuid: string): string | undefined {
      return (store.monitors.get(uuid) ?? store.healthchecks.get(uuid) ?? store.healthchecks.getByPublicUuid(uuid) ?? store.incidents.components.get(uuid))?.name;
    },
    /** @throws AppError 400 naming the field, 409 for a taken subdomain or hostname */
    async create(body: StatuspageBodyInput): Promise<Statuspage> {
      const r = resolveStatuspage(body, null, knownService, knownConnection);
      return changed(insertPage(r, body.password ? await hashPassword(body.password) : null));
    },
    /**
     * Like {@link create} without a password, synchronously, so an importer can create pages inside
     * its own transaction (`pharos import kuma`). @throws AppError 400 (also for a password) / 409
     */
    createWithoutPassword(body: StatuspageBodyInput): Statuspage {
      if (body.password) throw new AppError(400, 'statuspages.invalid', 'password: cannot be set here');
      return changed(insertPage(resolveStatuspage(body, null, knownService, knownConnection), null));
    },
    /**
     * Partial update: fields left out keep their values, `sections`, when given, replace all; the
     * merged page is checked as a whole and nothing is stored when it breaks a rule.
     * @throws AppError 404 / 400 / 409
     */
    async update(uuid: string, body: StatuspagePatchInput): Promise<Statuspage> {
      const current = mustGet(uuid);
      const r = resolveStatuspage(body, current, knownService, knownConnection);
      const passwordHash = body.password ? await hashPassword(body.password) : current.passwordHash;
      return changed(
        store.tx((tx) => {
          mustGet(uuid);
          const subdomain = r.subdomain ? freeSubdomain(r.subdomain, r.name, uuid) : current.subdomain;
          checkHostname(r.hostname, uuid);
          return tx.statuspages.update(uuid, { ...r, subdomain, passwordHash }, clock.now());
        }),
      );
    },
    /** @throws AppError 404 */
    delete(uuid: string): void {
      store.tx((tx) => {
        mustGet(uuid);
        tx.statuspages.delete(uuid);
      });
      changed({ uuid });
    },
  };
}

/** The status pages service's interface. */
export type StatuspagesService = ReturnType<typeof statuspagesService>;
