import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Clock } from '../../lib/clock.ts';
import type { EventBus } from '../../core/events.ts';

/** What a status page shows of a healthcheck: a change of any of these invalidates the cache. */
interface ShownHealthcheck {
  status: string;
  name: string;
  paused: boolean;
  pinged: boolean;
}

/** A render kept for a while: the body once, its compressed forms made on first demand. */
interface Entry {
  body: Buffer;
  gzip?: Buffer;
  br?: Buffer;
  etag: string;
  contentType: string;
  /** The CSP nonce the body was rendered with (its `<style>`/`<script>` carry it). */
  nonce: string;
  /** Epoch ms (the page clock) after which the entry is not served. */
  expiresAt: number;
  renderedAt: number;
  version: number;
}

/** What a route renders on a miss. */
export interface Rendered {
  body: string;
  contentType: string;
  /** Epoch ms of the next moment the content changes by time alone (a maintenance start or end), if any. */
  changesAt?: number | undefined;
}

/** Entries kept at most (oldest dropped first). Keys are bounded anyway (pages × languages × routes × ranges). */
const MAX_ENTRIES = 2_000;
/** A key is rendered again after an invalidating event at most this often, ms (bounds render work in an outage storm). */
export const MIN_RENDER_INTERVAL_MS = 1_000;

/**
 * The render cache of public status pages (issue 21): one entry per (route, page, page version,
 * base path, language, range), each dropped
 * - when the core announces a change a page shows (a monitor created/edited/deleted or turning degraded/fast again, an outage
 *   opened/resolved/deleted — a check flipping —, a healthcheck's status or name, a maintenance
 *   window changed, an incident or its update, a component, a status page edited), rendered again
 *   at most once per {@link MIN_RENDER_INTERVAL_MS} per key so an outage storm cannot turn every
 *   visit into a render;
 * - at the next minute (uptime bars, response times and "updated" times move with the clock);
 * - at the next maintenance start or end the render knows of, and after 1 s while it shows a
 *   monitor with no check yet (`unknown`: its first result makes it operational without an event).
 * Lookups happen after the page's gate (password, SSO) has let the visitor in, and the key holds
 * the page's uuid, so an entry is never served for another page or past a wall.
 * Bodies are kept once with an ETag (SHA-1) and compressed (gzip, brotli) once per entry.
 */
export class PageRenderCache {
  readonly #entries = new Map<string, Entry>();
  /** Renders in flight, by key. */
  readonly #rendering = new Map<string, Promise<Entry>>();
  readonly #clock: Clock;
  #version = 0;
  /** healthcheck id → what a page shows of it (status, name, paused, pinged yet): later pings do not invalidate. */
  readonly #healthchecks = new Map<number, ShownHealthcheck>();
  /** Renders done (misses), for tests and metrics. */
  renders = 0;

  /** @param bus the core's events (see the class comment for which invalidate) */
  constructor(bus: EventBus, clock: Clock) {
    this.#clock = clock;
    const bump = () => this.invalidate();
    for (const e of ['monitor.created', 'monitor.updated', 'monitor.deleted', 'monitor.degraded', 'outage.opened', 'outage.resolved', 'outage.deleted', 'maintenance.changed', 'maintenance.deleted', 'healthcheck.deleted', 'statuspage.content'] as const) {
      bus.on(e, bump);
    }
    // Runs on every ping (the hot path): compares fields, allocates only when something shown changed.
    bus.on('healthcheck.changed', ({ healthcheck: h }) => {
      const was = this.#healthchecks.get(h.id);
      const pinged = h.lastPingAt !== null;
      if (was && was.status === h.status && was.name === h.name && was.paused === h.paused && was.pinged === pinged) return;
      this.#healthchecks.set(h.id, { status: h.status, name: h.name, paused: h.paused, pinged });
      bump();
    });
  }

  /** Every entry is stale from now on (kept until its key is asked for, for the render interval). */
  invalidate(): void {
    this.#version++;
  }

  /**
   * The cached render of `key`, or a fresh one from `render`. One render in flight per key:
   * concurrent visitors after an invalidation await the same render, not one each. A render keeps
   * the version it started at (an invalidation during it is seen by the next visitor past
   * {@link MIN_RENDER_INTERVAL_MS}). A render that fails rejects for all its waiters and keeps nothing.
   * @param nonce the CSP nonce to render with on a miss (the entry keeps it for the headers)
   */
  get(key: string, nonce: string, render: () => Rendered | Promise<Rendered>): Promise<Entry> {
    const now = this.#clock.now();
    const e = this.#entries.get(key);
    if (e && now < e.expiresAt && (e.version === this.#version || now - e.renderedAt < MIN_RENDER_INTERVAL_MS)) return Promise.resolve(e);
    const pending = this.#rendering.get(key);
    if (pending) return pending;
    const version = this.#version;
    const p = (async () => this.#keep(key, nonce, await render(), now, version))().finally(() => {
      if (this.#rendering.get(key) === p) this.#rendering.delete(key);
    });
    this.#rendering.set(key, p);
    return p;
  }

  /** Keeps `r`, rendered now with `nonce`, as the entry of `key` (the warm-up's synchronous render). */
  put(key: string, nonce: string, r: Rendered): Entry {
    return this.#keep(key, nonce, r, this.#clock.now(), this.#version);
  }

  #keep(key: string, nonce: string, r: Rendered, now: number, version: number): Entry {
    this.renders++;
    const body = Buffer.from(r.body, 'utf8');
    const nextMinute = (Math.floor(now / 60_000) + 1) * 60_000;
    const entry: Entry = {
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      contentType: r.contentType,
      nonce,
      expiresAt: r.changesAt !== undefined && r.changesAt > now ? Math.min(nextMinute, r.changesAt) : nextMinute,
      renderedAt: now,
      version,
    };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    return entry;
  }

  /** The body in the best encoding `acceptEncoding` allows (br, gzip, identity), compressed once per entry. */
  encoded(e: Entry, acceptEncoding: string | undefined): { body: Buffer; encoding: 'br' | 'gzip' | null } {
    const accepts = (name: string) => acceptEncoding !== undefined && new RegExp(`(^|[\\s,])${name}(?![^,]*;\\s*q=0(\\.0*)?\\s*(,|$))`).test(acceptEncoding);
    if (e.body.length < 512) return { body: e.body, encoding: null };
    if (accepts('br')) return { body: (e.br ??= brotliCompressSync(e.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: e.body.length } })), encoding: 'br' };
    if (accepts('gzip')) return { body: (e.gzip ??= gzipSync(e.body, { level: 6 })), encoding: 'gzip' };
    return { body: e.body, encoding: null };
  }
}

/** A cache entry as the routes see it. */
export type CachedRender = Awaited<ReturnType<PageRenderCache['get']>>;
