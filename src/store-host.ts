/**
 * The store host thread (issue 31): on PostgreSQL, `store.async` calls of the main thread are run here,
 * on this thread's own synchronous store, so the main thread's event loop never waits on the database
 * (store/host-client.ts starts it and talks to it; store/host-protocol.ts is the wire).
 *
 * Procedures (store/async.ts `procedure`) are known here only if the module defining them is imported:
 * src/core/index.ts imports every core module; the alerting modules with procedures are listed below.
 */
import './core/index.ts';
import './alerting/dispatcher.ts';
import './alerting/flood-guard.ts';
import './alerting/maintenance-gate.ts';
import './alerting/stepper.ts';
import './alerting/subscriber-channels.ts';
import './alerting/outage-alerts.ts';
import './alerting/integration-channels.ts';
// Operator notices (the flood guard's, failed backups', failed certificates'): one procedure.
import './core/operator-notice.ts';
import { serveStoreHost } from './store/host-server.ts';

serveStoreHost();
