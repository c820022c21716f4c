import type { Clock } from '../lib/clock.ts';
import { AppError, conflict, notFound } from '../lib/errors.ts';
import { hashPassword } from '../lib/password.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { resolveStatuspage, subdomainFrom, type PageService, type Statuspage, type StatuspageBodyInput, type StatuspagePatchInput } from '../domain/statuspage.ts';
import type { SsoConnection } from '../domain/sso-connection.ts';
import type { Store } from '../store/index.ts';
import { procedure } from '../store/async.ts';
import { statuspageAuditDiff } from '../domain/audit-views.ts';
import type { AuditActor } from '../domain/audit.ts';
import { recordAudit } from './audit-log.ts';
import type { EventBus } from './events.ts';
import { serviceUuidOf } from './references.ts';

/** Status pages per list page (CONTRACT.md "Status pages (v2)"). */
export const STATUSPAGES_PER_PAGE = 20;

/** How long a public lookup (`bySubdomain`, `byHost`) is remembered, ms. */
const LOOKUP_MS = 1_000;

// Transaction bodies (store/async.ts): pure functions of the transaction's store and their arguments.

const mustGetIn = (tx: Store, uuid: string): Statuspage => {
  const s = tx.statuspages.get(uuid);
  if (!s) throw notFound('statuspages', 'Status page');
  return s;
};

/** The body checked as a whole against `current` (null: a new page); references looked up in `tx`. */
const resolveIn = (tx: Store, body: StatuspagePatchInput, current: Statuspage | null) =>
  resolveStatuspage(body, current, (u) => serviceUuidOf(tx, u), (u) => tx.ssoConnections.get(u) !== undefined);

/** `wanted` when free (else 409), or a subdomain made from `name` with a number added when taken. */
function freeSubdomain(tx: Store, wanted: string | undefined, name: string, self: string | null): string {
  const taken = (s: string) => {
    const other = tx.statuspages.bySubdomain(s);
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
}

function checkHostname(tx: Store, hostname: string | null, self: string | null): void {
  const other = hostname ? tx.statuspages.byHostname(hostname) : undefined;
  if (other && other.uuid !== self) throw conflict('statuspages.hostname_taken', `hostname "${hostname}" is used by another status page`);
}

/** Checks a body without storing it (before a password is hashed: a broken body costs no hash). */
const checkPage = procedure('statuspages.check', (tx: Store, a: { uuid: string | null; body: StatuspagePatchInput }): null => {
  resolveIn(tx, a.body, a.uuid === null ? null : mustGetIn(tx, a.uuid));
  return null;
});

/** The audit entry of a page write (the password hash shown as `***`). */
const audit = (tx: Store, a: { actor: AuditActor; now: number }, action: 'create' | 'update' | 'delete', before: Statuspage | null, after: Statuspage | null) => {
  const s = (after ?? before)!;
  recordAudit(tx, a, { action, resourceType: 'statuspage', resourceUuid: s.uuid, resourceName: s.name, diff: statuspageAuditDiff(before, after) });
};

/**
 * Stores a new page: checked, subdomain made free, hostname unique; `actor` goes to the audit log.
 * With `uuid` (a create that may come twice, such as a console form clicked twice) the page gets
 * that uuid, and when it exists already it is answered as it is and nothing is written.
 */
const insertPage = procedure('statuspages.insert', (tx: Store, a: { body: StatuspageBodyInput; passwordHash: string | null; now: number; actor: AuditActor; uuid?: string }): Statuspage => {
  const done = a.uuid === undefined ? undefined : tx.statuspages.get(a.uuid);
  if (done) return done;
  const r = resolveIn(tx, a.body, null);
  const subdomain = freeSubdomain(tx, r.subdomain, r.name, null);
  checkHostname(tx, r.hostname, null);
  const page = tx.statuspages.insert(a.uuid ?? newId(ID_PREFIX.statuspage), { ...r, subdomain, passwordHash: a.passwordHash }, a.now);
  audit(tx, a, 'create', null, page);
  return page;
});

/** Merges a patch into the stored page and stores it; `passwordHash` null keeps the stored one, unless the body's `password` is null (removed). */
const updatePage = procedure('statuspages.update', (tx: Store, a: { uuid: string; body: StatuspagePatchInput; passwordHash: string | null; now: number; actor: AuditActor }): Statuspage => {
  const current = mustGetIn(tx, a.uuid);
  const r = resolveIn(tx, a.body, current);
  const subdomain = r.subdomain ? freeSubdomain(tx, r.subdomain, r.name, a.uuid) : current.subdomain;
  checkHostname(tx, r.hostname, a.uuid);
  const page = tx.statuspages.update(a.uuid, { ...r, subdomain, passwordHash: a.body.password === null ? null : (a.passwordHash ?? current.passwordHash) }, a.now);
  audit(tx, a, 'update', current, page);
  return page;
});

/** The page as `body` would make it, stored nothing (the console's preview): the same merge and rules as an update; subdomain and password stay as stored. */
const draftPage = procedure('statuspages.draft', (tx: Store, a: { uuid: string; body: StatuspagePatchInput }): Statuspage => {
  const current = mustGetIn(tx, a.uuid);
  const r = resolveIn(tx, a.body, current);
  return { ...current, name: r.name, hostname: r.hostname, settings: r.settings, sections: r.sections };
});

/** Deletes a page and records it. @throws AppError 404 */
const deletePage = procedure('statuspages.delete', (tx: Store, a: { uuid: string; now: number; actor: AuditActor }): null => {
  const current = mustGetIn(tx, a.uuid);
  tx.statuspages.delete(a.uuid);
  audit(tx, a, 'delete', current, null);
  return null;
});

/** Names of services (monitor, healthcheck or component uuids) and SSO connections by uuid. */
const shownOf = procedure('statuspages.shown', (tx: Store, a: { services: string[]; connections: string[] }) => {
  const names = new Map<string, string>();
  for (const u of a.services) {
    const name = (tx.monitors.get(u) ?? tx.healthchecks.get(u) ?? tx.healthchecks.getByPublicUuid(u) ?? tx.incidents.components.get(u))?.name;
    if (name !== undefined) names.set(u, name);
  }
  const connections = new Map<string, SsoConnection>();
  for (const u of a.connections) {
    const c = tx.ssoConnections.get(u);
    if (c) connections.set(u, c);
  }
  return { names, connections };
});

/** What the API shows of pages beside their rows: services' own names, SSO connections. */
export interface PagesShown {
  nameOf(uuid: string): string | undefined;
  connection(uuid: string): SsoConnection | undefined;
}

/**
 * Status page use cases (API.md §4.7, CONTRACT.md "Status pages (v2)"): validation of every field,
 * subdomains unique (a taken one → 409; none given → made from the name, with a number added when
 * taken), passwords stored only as scrypt hashes. Every store call is asynchronous (issue 31);
 * each write is one procedure.
 */
export function statuspagesService(deps: { store: Store; clock: Clock; bus?: EventBus }) {
  const { store, clock, bus } = deps;
  /**
   * Lookups of public requests (`bySubdomain`, `byHost`), kept 1 s and dropped on every write here
   * and on every status page change relayed from another instance, so a crowd on a page does not
   * read its row per request. One read in flight per key: concurrent requests after a miss await
   * the same read. A read started before a change is handed to its waiters but not remembered.
   * Bounded: cleared when it holds 1,000 keys (any Host header is a key).
   */
  const memo = new Map<string, { page: Statuspage | undefined; at: number }>();
  const loading = new Map<string, Promise<Statuspage | undefined>>();
  let generation = 0;
  const remembered = (key: string, load: () => Promise<Statuspage | undefined>): Promise<Statuspage | undefined> => {
    const now = clock.now();
    const hit = memo.get(key);
    if (hit && now - hit.at < LOOKUP_MS && now >= hit.at) return Promise.resolve(hit.page);
    const pending = loading.get(key);
    if (pending) return pending;
    const gen = generation;
    const p: Promise<Statuspage | undefined> = load()
      .then((page) => {
        if (gen === generation) {
          if (memo.size >= 1_000) memo.clear();
          memo.set(key, { page, at: now });
        }
        return page;
      })
      .finally(() => {
        if (loading.get(key) === p) loading.delete(key);
      });
    loading.set(key, p);
    return p;
  };
  const forget = () => {
    generation++;
    memo.clear();
    loading.clear();
  };
  // Another instance's edit (relayed, cluster/relay.ts) or this one's: the next lookup reads again.
  bus?.on('statuspage.content', ({ kind }) => kind === 'statuspage' && forget());
  /** After a write's commit: the page's public renders are stale. */
  const changed = <T extends { uuid: string }>(s: T): T => {
    forget();
    bus?.emit('statuspage.content', { kind: 'statuspage', uuid: s.uuid });
    return s;
  };
  const mustGet = async (uuid: string): Promise<Statuspage> => {
    const s = await store.async.statuspages.get(uuid);
    if (!s) throw notFound('statuspages', 'Status page');
    return s;
  };

  return {
    /** A page (0-indexed) of status pages; `search` keeps those whose name, subdomain or hostname contains it. */
    async list(page: number, search?: string) {
      const { items, total } = await store.async.statuspages.list(STATUSPAGES_PER_PAGE, page * STATUSPAGES_PER_PAGE, search);
      return { statuspages: items, hasNextPage: (page + 1) * STATUSPAGES_PER_PAGE < total, total, page, resultsPerPage: STATUSPAGES_PER_PAGE };
    },
    /** @throws AppError 404 `statuspages.not_found` */
    get: mustGet,
    /** The page at `subdomain` (any case), or undefined. */
    bySubdomain: (subdomain: string): Promise<Statuspage | undefined> => {
      const s = subdomain.toLowerCase();
      return remembered(`s:${s}`, () => store.async.statuspages.bySubdomain(s));
    },
    /**
     * The page a request's Host names: its custom `hostname`, or `<subdomain>.<hostedDomain>`
     * (one label). Port and case are ignored. Undefined for any other host.
     */
    byHost(host: string | undefined, hostedDomain: string): Promise<Statuspage | undefined> {
      if (!host) return Promise.resolve(undefined);
      const h = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
      return remembered(`h:${hostedDomain}:${h}`, async () => {
        const custom = await store.async.statuspages.byHostname(h);
        if (custom) return custom;
        const suffix = `.${hostedDomain.toLowerCase()}`;
        if (!h.endsWith(suffix)) return undefined;
        const sub = h.slice(0, -suffix.length);
        return sub && !sub.includes('.') ? store.async.statuspages.bySubdomain(sub) : undefined;
      });
    },
    /** True when a status page uuid exists (maintenance windows, incidents). */
    exists: async (uuid: string): Promise<boolean> => (await store.async.statuspages.get(uuid)) !== undefined,
    /** Services' own names (for services shown without one of their own) and SSO connections of `pages`, read in one transaction. */
    async shown(pages: readonly Statuspage[]): Promise<PagesShown> {
      const services = new Set<string>();
      const walk = (list: readonly PageService[]) =>
        list.forEach((v) => {
          if (v.name_shown === null && v.monitor_uuid) services.add(v.monitor_uuid);
          walk(v.services);
        });
      const connections = new Set<string>();
      for (const p of pages) {
        p.sections.forEach((sec) => walk(sec.services));
        const c = p.settings.authentication.sso_connection_uuid;
        if (c) connections.add(c);
      }
      const r = services.size + connections.size === 0 ? { names: new Map<string, string>(), connections: new Map<string, SsoConnection>() } : await store.async.tx(shownOf, { services: [...services], connections: [...connections] });
      return { nameOf: (u) => r.names.get(u), connection: (u) => r.connections.get(u) };
    },
    /**
     * Every write here records `actor` in the audit log in its own transaction. `uuid` (optional,
     * `sp_` + 22 base62) makes the create idempotent: a page with that uuid already stored is
     * answered unchanged (a form posted twice creates one page).
     * @throws AppError 400 naming the field, 409 for a taken subdomain or hostname
     */
    async create(body: StatuspageBodyInput, actor: AuditActor, uuid?: string): Promise<Statuspage> {
      let passwordHash: string | null = null;
      if (uuid !== undefined) {
        const done = await store.async.statuspages.get(uuid);
        if (done) return done;
      }
      if (body.password) {
        await store.async.tx(checkPage, { uuid: null, body });
        passwordHash = await hashPassword(body.password);
      }
      return changed(await store.async.tx(insertPage, { body, passwordHash, now: clock.now(), actor, ...(uuid === undefined ? {} : { uuid }) }));
    },
    /**
     * Like {@link create} without a password, synchronously, so an importer can create pages inside
     * its own transaction (`pharos import kuma`, a CLI command). @throws AppError 400 (also for a password) / 409
     */
    createWithoutPassword(body: StatuspageBodyInput, actor: AuditActor): Statuspage {
      if (body.password) throw new AppError(400, 'statuspages.invalid', 'password: cannot be set here');
      return changed(store.tx((tx) => insertPage.run(tx, { body, passwordHash: null, now: clock.now(), actor })));
    },
    /**
     * Partial update: fields left out keep their values, `sections`, when given, replace all; the
     * merged page is checked as a whole and nothing is stored when it breaks a rule.
     * @throws AppError 404 / 400 / 409
     */
    async update(uuid: string, body: StatuspagePatchInput, actor: AuditActor): Promise<Statuspage> {
      let passwordHash: string | null = null;
      if (body.password) {
        await store.async.tx(checkPage, { uuid, body });
        passwordHash = await hashPassword(body.password);
      }
      return changed(await store.async.tx(updatePage, { uuid, body, passwordHash, now: clock.now(), actor }));
    },
    /**
     * The page `uuid` with `body` merged in as {@link update} would, checked by the same rules, and
     * not stored (no audit, no event): what the console's preview renders.
     * @throws AppError 404 / 400 naming the field
     */
    draft: (uuid: string, body: StatuspagePatchInput): Promise<Statuspage> => store.async.tx(draftPage, { uuid, body }),
    /** @throws AppError 404 */
    async delete(uuid: string, actor: AuditActor): Promise<void> {
      await store.async.tx(deletePage, { uuid, now: clock.now(), actor });
      changed({ uuid });
    },
  };
}

/** The status pages service's interface. */
export type StatuspagesService = ReturnType<typeof statuspagesService>;
