import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/schema.ts';
import type { Core } from '../core/index.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import type { Store } from '../store/index.ts';
import type { AcmeManager } from './acme.ts';
import { tlsFiles } from './files.ts';
import { tlsNotifier } from './notice.ts';
import { watchCertFiles } from './static.ts';

/** HTTPS in front of the app (issue 37 point 2; docs/operations.md "HTTPS"). */
export interface TlsFront {
  /** Makes the HTTPS server `listen` serves (the `createServer` @hono/node-server calls): HSTS added when configured. */
  createServer(options: object, listener: RequestListener): HttpsServer;
  /**
   * Starts the plain-HTTP listener of `tls.http_listen` (none when unset): ACME HTTP-01 answers, then a
   * 308 redirect to HTTPS (or `listener`, with `redirect: false`). Call once the HTTPS server listens.
   * @throws AppError `http.listen_failed` when its address cannot be used
   */
  listenHttp(listener: RequestListener, httpsPort: number): Promise<void>;
  /** The plain-HTTP listener's port, or null. */
  httpPort(): number | null;
  /** The ACME manager (null with certificate files). */
  acme: AcmeManager | null;
  /** Stops renewals, file watching and the HTTP listener. */
  close(): Promise<void>;
}

/** The hosted domain of status pages (as src/http/api/statuspages.ts `hostedDomain`). */
const hostedDomain = (config: Pick<Config, 'status_pages' | 'public_url'>) => config.status_pages.hosted_domain ?? new URL(config.public_url).hostname;

/** `[v6]` or a host name: what a redirect may put in Location (anything else is answered 400). */
const SAFE_HOST = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/;

/**
 * Builds the HTTPS front from `config.tls` (null when unset): certificate files (loaded now, reloaded
 * when they change), or the ACME manager (certificates by SNI: src/tls/acme.ts), whose first pass starts
 * with the HTTPS server. acme-client (and axios, node-forge, @peculiar/x509 under it) is loaded only
 * when `tls.acme` is set (issue 38: a configuration loads what it uses).
 * @throws AppError `tls.invalid` when the certificate files cannot be read or do not match
 */
export async function startTls(deps: { config: Readonly<Config>; clock: Clock; logger: Logger; core: Core; store: Store }): Promise<TlsFront | null> {
  const { config, logger } = deps;
  const tls = config.tls;
  if (!tls) return null;
  const hsts = tls.hsts_max_age_seconds > 0 ? `max-age=${tls.hsts_max_age_seconds}` : null;
  let https: HttpsServer | null = null;
  let plain: HttpServer | null = null;
  const domain = hostedDomain(config);
  const acme = tls.acme
    ? (await import('./acme.ts')).acmeManager({
        acme: tls.acme,
        files: tlsFiles(config.data_dir),
        clock: deps.clock,
        logger,
        pageAnswersAt: async (host) => (await deps.core.statuspages.byHost(host, domain)) !== undefined,
        // Clients sending no SNI (a visit by IP address): the first configured domain's certificate.
        onDefault: (cert) => https?.setSecureContext({ cert: cert.chain, key: cert.key }),
        notify: (host, error, now) => tlsNotifier({ store: deps.store, core: deps.core, config })(host, error, now).catch((e: unknown) => logger.error(`tls: the notice about ${host} could not be queued: ${(e as Error).message}`)),
      })
    : null;
  const watcher = tls.cert && tls.key ? watchCertFiles({ cert: tls.cert, key: tls.key, logger, apply: (ctx) => https?.setSecureContext(ctx) }) : null;

  const options: ServerOptions = watcher
    ? { ...watcher.current() }
    : {
        SNICallback: (servername, cb) => {
          const pending = acme!.alpnContext(servername);
          if (pending) return cb(null, pending);
          acme!.contextFor(servername).then(
            (ctx) => (ctx ? cb(null, ctx) : cb(new Error(`no certificate for ${servername}`))),
            (e: unknown) => cb(e as Error),
          );
        },
        // TLS-ALPN-01 (RFC 8737): acme-tls/1 only for a name with a pending challenge; else HTTP/1.1.
        ALPNCallback: ({ servername, protocols }) => {
          if (protocols.includes('acme-tls/1') && servername && acme!.alpnPending(servername)) return 'acme-tls/1';
          return protocols.includes('http/1.1') ? 'http/1.1' : undefined;
        },
      };

  const redirect = (req: IncomingMessage, res: ServerResponse, httpsPort: number) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!SAFE_HOST.test(host)) {
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'http.bad_host', message: 'Host: must name this server' }));
      return;
    }
    const pub = new URL(config.public_url);
    const port = pub.protocol === 'https:' ? Number(pub.port || 443) : httpsPort;
    res.writeHead(308, { Location: `https://${host}${port === 443 ? '' : `:${port}`}${req.url ?? '/'}`, 'Content-Length': '0' }).end();
  };

  return {
    acme,
    createServer(_options, listener) {
      // Pings and Kuma pushes are answered before the app (which sets HSTS itself, src/http/app.ts): the header for them too.
      https = createHttpsServer(options, hsts ? (req, res) => (res.setHeader('Strict-Transport-Security', hsts), listener(req, res)) : listener);
      // The first pass once the server exists (the first domain's certificate becomes its default context).
      acme?.start();
      return https;
    },
    async listenHttp(listener, httpsPort) {
      if (!tls.http_listen) return;
      const i = tls.http_listen.lastIndexOf(':');
      const host = tls.http_listen.slice(0, i).replace(/^\[(.*)\]$/, '$1') || '0.0.0.0';
      const port = Number(tls.http_listen.slice(i + 1));
      const server = createHttpServer((req, res) => {
        const m = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
        const answer = m && acme?.httpAnswer(m[1]!);
        if (answer) res.writeHead(200, { 'Content-Type': 'text/plain' }).end(answer);
        else if (m && tls.redirect) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such challenge');
        else if (tls.redirect) redirect(req, res, httpsPort);
        else listener(req, res);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', (e: NodeJS.ErrnoException) => reject(new AppError(500, 'http.listen_failed', `cannot listen on ${tls.http_listen} (tls.http_listen): ${e.code === 'EADDRINUSE' ? 'address already in use' : e.message}`)));
        server.listen(port, host, () => resolve());
      });
      plain = server;
    },
    httpPort: () => (plain ? (plain.address() as AddressInfo).port : null),
    async close() {
      watcher?.close();
      await acme?.close();
      const p = plain;
      if (p) await new Promise<void>((resolve) => (p.close(() => resolve()), p.closeAllConnections()));
    },
  };
}
