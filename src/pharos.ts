import { markServing } from './store/sync-trace.ts';
import { createServer, type RequestListener } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Config } from './config/schema.ts';
import { createCore, type Core } from './core/index.ts';
import { provisionFromConfig, type ProvisionReport } from './core/provision.ts';
import { createProbes } from './engine/probes/index.ts';
import type { Scheduler } from './engine/scheduler.ts';
import type { HealthcheckDeadlines } from './engine/deadlines.ts';
import { integrationChannels } from './alerting/integration-channels.ts';
import type { AlertDispatcher } from './alerting/dispatcher.ts';
import type { EscalationStepper } from './alerting/stepper.ts';
import type { FloodGuard } from './alerting/flood-guard.ts';
import type { MaintenanceGate } from './alerting/maintenance-gate.ts';
import { channelLookup } from './alerting/subscriber-channels.ts';
import { createChannelTester } from './alerting/test-alert.ts';
import { createPersonSender } from './alerting/person-sender.ts';
import { createApp } from './http/app.ts';
import { clientErrorHandler } from './http/errors.ts';
import { pingHandler } from './http/ping.ts';
import { kumaPushHandler } from './http/kuma-push.ts';
import { hostGuard } from './http/host.ts';
import { fairListener } from './http/fair.ts';
import { warmUpWhenPagesExist } from './http/pages/warm-up.ts';
import { createMetrics } from './http/metrics.ts';
import { systemClock, type Clock, type TimerHandle } from './lib/clock.ts';
import { startBackupSchedule, type BackupSchedule } from './backup-schedule.ts';
import { startDomainExpiry, type DomainExpiryWatch } from './domain-expiry.ts';
import { markDataDirServed } from './store/data-dir-lock.ts';
import { AppError } from './lib/errors.ts';
import { listenUrls } from './lib/listen-urls.ts';
import type { Logger } from './lib/logger.ts';
import { describeTarget, migrationLine, openStore, watchAvailability } from './store/open.ts';
import type { MigrationReport } from './store/migrations/index.ts';
import { openSecretBox } from './store/secret-check.ts';
import { WORKER_START_RULES } from './store/checkpointer.ts';
import type { SecretBox } from './lib/secret-box.ts';
import { storageTarget } from './config/storage.ts';
import type { Store } from './store/index.ts';
import { PHAROS_VERSION } from './version.ts';
import { randomBase62 } from './domain/ids.ts';
import { singleCluster } from './cluster/single.ts';
import { relayChanges } from './cluster/relay.ts';
import type { Cluster } from './cluster/types.ts';
import { clusterHealth } from './cluster/health.ts';
import { LeaderWork } from './leader-work.ts';
import { startTls, type TlsFront } from './tls/index.ts';

/** A running Pharos: the HTTP server, the engine and the store, and how to stop them. */
export interface RunningPharos {
  /** Base URL the server answers on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Every base URL it listens on (each interface's address when `listen` is 0.0.0.0 or ::), loopback first: for the operator's log. */
  urls: string[];
  port: number;
  core: Core;
  store: Store;
  scheduler: Scheduler;
  deadlines: HealthcheckDeadlines;
  stepper: EscalationStepper;
  floodGuard: FloodGuard;
  maintenanceGate: MaintenanceGate;
  dispatcher: AlertDispatcher;
  /** This instance's view of the cluster (leadership, instances); `single` with SQLite. */
  cluster: Cluster;
  /** The installation's secret key (integration secrets are sealed and opened with it; issue 32). */
  secrets: SecretBox;
  /**
   * Provisions config.yaml's `channels` and `escalation_policies` again (SIGHUP: `pharos serve`
   * calls it with the reloaded config). Never rejects: failures are logged and reported.
   */
  provision(config: Pick<Config, 'channels' | 'escalation_policies'>): Promise<ProvisionReport>;
  /** The token generated at first start (null when one existed or PHAROS_ADMIN_TOKEN was set). */
  firstStartToken: string | null;
  /** The first-start setup token while nobody can sign in to the console yet (its link is logged), else null. */
  setupToken: string | null;
  /** Scheduled SQLite backups (issue 37; src/backup-schedule.ts): their status, a backup now. */
  backups: BackupSchedule;
  /** Domain-expiry warnings (issue 36; src/domain-expiry.ts): a sweep now. */
  domainExpiry: DomainExpiryWatch;
  /** HTTPS served by Pharos (config `tls`, src/tls/): its ACME manager and plain-HTTP port; null without `tls`. */
  tls: TlsFront | null;
  /** Graceful stop: stop accepting requests, wait for checks in flight, flush results, checkpoint WAL, close the DB. */
  close(): Promise<void>;
}


/** `host:port` → parts (`[::1]:80` style accepted). */
export function parseListen(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(':');
  const host = listen.slice(0, i).replace(/^\[(.*)\]$/, '$1') || '0.0.0.0';
  return { host, port: Number(listen.slice(i + 1)) };
}

/**
 * Wires config → store → core → engine → http and starts listening (ARCHITECTURE.md: main wires
 * everything). Tests call this in-process with a manual clock; `pharos serve` calls it with the
 * system clock.
 * @throws AppError with a one-line message when the data dir or the port cannot be used
 */
export async function startPharos(opts: { config: Readonly<Config>; logger: Logger; clock?: Clock; nativeBinding?: object | undefined }): Promise<RunningPharos> {
  const { config, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const target = storageTarget(config, opts.nativeBinding);
  // SQLite: WAL checkpoints on a worker thread, not inside the commits of the event loop (issue 21).
  // Migrations applied at start are said in one line (and where the copy from before them is, issue 37).
  const onMigrated = (r: MigrationReport) => logger.info(migrationLine(target, r), { from: r.from, to: r.to, copy: r.copy });
  // The checkpoint worker thread starts (storage.checkpoint_thread auto) once SQLite's own checkpoints
  // come often: a Pharos that writes little holds no thread for it (issue 38).
  const startAt = config.storage.checkpoint_thread === 'always' ? [] : WORKER_START_RULES;
  const store = openStore(target.driver === 'sqlite' ? { ...target, checkpoints: { warn: (line: string) => logger.warn(line), info: (line: string) => logger.info(line), startAt }, onMigrated } : { ...target, onMigrated });
  if (target.driver === 'postgres') logger.info(`store: ${describeTarget(target)} (pool ${config.storage.postgres_pool_size}, statement timeout ${config.storage.postgres_statement_timeout_ms} ms)`);
  const stopWatching = watchAvailability(store, (up) => {
    if (up) logger.info(`database reachable again (${describeTarget(target)}): writes and pings are stored again`);
    else logger.error(`database unreachable (${describeTarget(target)}): API writes and pings answer 503 until it is back`);
  });
  // Integration secrets are sealed with this box; the database keeps which key (refused if another, issue 32).
  let opened: Awaited<ReturnType<typeof openSecretBox>>;
  try {
    opened = await openSecretBox(store, { dataDir: config.data_dir, keyText: config.secret_key, now: clock.now() });
  } catch (e) {
    // A key that cannot be read or is not the database's ends start-up with its message.
    stopWatching();
    store.close();
    throw e;
  }
  const { box: secrets, source, created, looseMode } = opened;
  // Said once listening (a start that fails to listen says only why, in one line).
  const keyCreated = () => {
    if (created) logger.info(`secret key created at ${source}: integration secrets are sealed with it; back it up with the database (without it they cannot be opened)`, { secret_key: source });
  };
  if (looseMode) logger.warn(`secret key file ${source} can be read by other users: chmod 600 it`, { secret_key: source });
  const channelTester = createChannelTester({ publicUrl: config.public_url, clock });
  const core = createCore({ store, clock, logger, config, channelTester, secrets, personSender: createPersonSender({ clock }) });
  // Senders built from the stored integrations when an alert is sent (a change works at once, issue 32).
  const channels = integrationChannels({ store, box: secrets, logger });
  // config.yaml's channels and escalation policies become provisioned integrations and policies
  // (issue 32), before leader work starts sending; again on SIGHUP (provision below).
  const provision = (from: Pick<Config, 'channels' | 'escalation_policies'>) => provisionFromConfig({ integrations: core.integrations, escalationPolicies: core.escalationPolicies, logger }, from);
  await provision(config);

  const metrics = createMetrics(() => core.results.statusCounts(), () => store.async.alerts.pendingCount(), () => core.checks.flushStats());
  core.bus.on('probe.results', ({ region, count }) => metrics.probes.agentResults(region, count));
  core.bus.on('probe.refused', ({ reason, count }) => metrics.probes.refusedResults(reason, count));
  // Group monitors (issue 36) read their members' stored states through the store's asynchronous interface.
  const monitorStates = (uuids: readonly string[]) => Promise.all(uuids.map(async (u) => { const m = await store.async.monitors.get(u); return m && { name: m.name, status: m.status, paused: m.paused }; }));
  const probes = createProbes({ sourceAddress: config.probe.source_address, userAgent: config.probe.user_agent, observePhase: metrics.engine.httpPhase, monitorStates });
  const instance = { id: `ins_${randomBase62(12)}`, address: '', version: PHAROS_VERSION, startedAt: clock.now() };
  // With PostgreSQL several instances may share the database: leadership by a lease with fencing (issue 31).
  // Loaded only then: a SQLite install never loads `pg` (like the PostgreSQL probe, which loads it lazily).
  const cluster =
    target.driver === 'postgres'
      ? (await import('./cluster/postgres.ts')).postgresCluster({
          url: target.url,
          clock,
          logger,
          instance,
          options: { heartbeatMs: config.storage.leader_renew_ms, leaseMs: config.storage.leader_lease_ms },
          storeAvailable: () => store.available(),
        })
      : singleCluster({ store: store.cluster, clock, instance });
  const work = new LeaderWork({ core, store, clock, logger, config, probes, channels: channelLookup({ integrations: channels, store, core }), metrics, leadership: cluster, shared: cluster.mode === 'postgres' });
  const stopRelay = relayChanges({ core, cluster, logger });

  // The console's "send test alert": the same sample delivery as `pharos alert test` (core.channels).
  const testAlert = async (name: string, by: string): Promise<string | null> => {
    try {
      const r = await core.channels.test(name);
      const answer = r.answers.map((a) => `${a.kind} → ${a.status ?? 'no answer'}`).join(', ');
      if (r.ok) logger.info('test alert delivered', { channel: name, by, answer });
      else logger.warn('test alert failed', { channel: name, by, error: r.error });
      return r.ok ? null : (r.error ?? `not delivered (${answer})`);
    } catch (e) {
      return (e as Error).message;
    }
  };
  // Scheduled backups of the SQLite database (issue 37), before the app that shows them.
  const backups = startBackupSchedule({ store, core, clock, logger, config, nativeBinding: opts.nativeBinding });
  // Domain-expiry warnings over RDAP (issue 36), swept by the leader.
  const domainExpiry = startDomainExpiry({ store, core, clock, logger, config, isLeader: () => cluster.isLeader });
  const app = createApp({ core, clock, logger, metricsText: metrics.text, metricsContentType: metrics.contentType, version: PHAROS_VERSION, testAlert, cluster: () => cluster.view(), leaderUrl: () => cluster.leaderUrl(), backups: () => backups.status(),
    health: () => clusterHealth(cluster, store),
  });
  const { host, port } = parseListen(config.listen);
  // The status pages' signing key, read once before the first request (signing never reads the store).
  await core.pageAccess.ready();
  // HTTPS (issue 37 point 2): `listen` serves TLS; tls.http_listen answers ACME challenges and redirects.
  let tls: TlsFront | null;
  try {
    tls = await startTls({ config, clock, logger, core, store });
  } catch (e) {
    stopWatching();
    store.close();
    throw e;
  }
  let handler: RequestListener | null = null;
  const server = await new Promise<ServerType>((resolve, reject) => {
    const pings = pingHandler({ core, clock, logger });
    const kumaPush = kumaPushHandler({ core, clock, logger, pushAlias: (t) => store.async.kumaImports.pushAlias(t) });
    const hostOk = hostGuard();
    // Pings are answered by a plain node:http handler in front of the Hono app (the hot path); an invalid
    // Host is refused before either. The app's work per event-loop turn is bounded (src/http/fair.ts):
    // checks and pings come first.
    const withPings = ((options: object, listener: RequestListener) => {
      const fair = fairListener(listener);
      handler = (req, res) => {
        if (hostOk(req, res) && !pings(req, res) && !kumaPush(req, res)) fair(req, res);
      };
      return (tls ? tls.createServer(options, handler) : createServer(options, handler)).on('clientError', clientErrorHandler());
    }) as unknown as typeof createServer;
    const s = serve({ fetch: app.fetch, hostname: host, port, createServer: withPings }, () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) => {
      void tls?.close();
      store.close();
      reject(new AppError(500, 'http.listen_failed', e.code === 'EADDRINUSE' ? `cannot listen on ${config.listen}: address already in use` : `cannot listen on ${config.listen}: ${e.message}`));
    });
  });
  try {
    await tls?.listenHttp(handler!, (server.address() as AddressInfo).port);
  } catch (e) {
    await tls?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    stopWatching();
    store.close();
    throw e;
  }
  keyCreated();
  // After a successful listen: a token generated by a start that then failed would never be shown.
  const firstStartToken = await core.users.bootstrapAdmin(config.admin_token);
  // Nobody can sign in yet: only this link (its token stored hashed, spent once used) makes the first admin.
  const setup = await core.accounts.setupToken();
  const setupToken = setup?.token ?? null;
  // Every address it listens on (issue 33 point 10): public_url is `localhost` by default, no use from another machine.
  const urls = listenUrls(host, (server.address() as AddressInfo).port, networkInterfaces()).map((u) => (tls ? u.replace(/^http:/, 'https:') : u));
  if (setup) {
    const expires = new Date(setup.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const links = [...new Set([config.public_url.replace(/\/$/, ''), ...urls])].map((u) => `${u}/setup/${setup.token}`);
    const also = links.length > 1 ? ` (or, at an address it listens on: ${links.slice(1).join(', ')})` : '';
    logger.warn(`no console user yet: open ${links[0]}${also} to create the first admin (the link works once and expires at ${expires}; after that restart Pharos for a new one, or run pharos user create)`, { setup_links: links });
  }
  const revokedAdmin = await core.users.revokedAdminTokenId(config.admin_token);
  if (revokedAdmin) logger.warn(`PHAROS_ADMIN_TOKEN was revoked (${revokedAdmin}) and stays revoked: unset it or set a new secret`, { token_id: revokedAdmin });
  // Every instance plans probes (agents poll any of them); the leader's scheduler takes the local share.
  await core.probes.start();
  // Delayed page steps stored before a restart are sent when due (issue 34 point 1).
  await core.people.resume();
  // Where the other instances reach this one (agent requests are forwarded to the leader).
  const reachable = host === '0.0.0.0' || host === '::' ? hostname() : host.includes(':') ? `[${host}]` : host;
  instance.address = `${reachable}:${(server.address() as AddressInfo).port}`;
  await cluster.start();
  await work.start();
  // "You are on call from 09:00" shortly before each hand-off (issue 34 point 2), told by the leader.
  core.onCallHandoffs.start(() => work.running);
  // The process's first status-page render costs ~4× a later one (code not compiled yet): paid once,
  // on a synthetic page, as soon as there is a page, instead of by its first visitor.
  const stopWarmUp = warmUpWhenPagesExist(core, clock, logger);
  // The pid file lets `pharos restore` refuse this data dir (issue 37).
  const unmarkDataDir = target.driver === 'sqlite' ? markDataDirServed(config.data_dir, opts.nativeBinding) : () => undefined;

  let prune: TimerHandle | null = null;
  const pruning = new AbortController();
  const pruneEveryMs = config.storage.prune_interval_minutes * 60_000;
  let pruningSessions: Promise<void> = Promise.resolve();
  const schedulePrune = () => {
    prune = clock.setTimer(pruneEveryMs, () => {
      // One run in flight (the next is scheduled when this one ends); close() awaits it.
      pruningSessions = core.accounts.pruneSessions().then(
        () => undefined,
        (e: unknown) => logger.error('pruning expired console sessions failed', { error: (e as Error).message }),
      );
      core.pruneResults(pruning.signal).then(
        (n) => {
          if (n > 0) logger.info(`pruned ${n} check results older than ${config.storage.raw_retention_days} days`, { rows: n });
        },
        (e: unknown) => logger.error('pruning check results failed; trying again at the next prune', { error: (e as Error).message }),
      ).finally(async () => {
        await pruningSessions;
        if (!pruning.signal.aborted) schedulePrune();
      });
    });
  };
  schedulePrune();

  const actualPort = (server.address() as AddressInfo).port;
  markServing();
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | null = null;
  return {
    url: `${tls ? 'https' : 'http'}://${urlHost}:${actualPort}`,
    urls,
    port: actualPort,
    core,
    store,
    get scheduler() {
      return work.scheduler;
    },
    deadlines: work.deadlines,
    stepper: work.stepper,
    floodGuard: work.floodGuard,
    maintenanceGate: work.maintenanceGate,
    get dispatcher() {
      return work.dispatcher;
    },
    cluster,
    secrets,
    firstStartToken,
    setupToken,
    provision,
    backups,
    domainExpiry,
    tls,
    close() {
      closing ??= (async () => {
        prune?.cancel();
        stopWarmUp();
        pruning.abort();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
        await tls?.close();
        core.probes.stop();
        core.people.stop();
        core.onCallHandoffs.stop();
        stopRelay();
        await work.stop();
        await cluster.stop();
        await channels.close();
        await core.checks.close();
        await Promise.all(Object.values(probes).map((p) => p.close()));
        stopWatching();
        await pruningSessions;
        await domainExpiry.close();
        await backups.close();
        store.close();
        unmarkDataDir();
      })();
      return closing;
    },
  };
}
