import { faultTests, inOwnNetworkNamespace } from '../support/cluster-faults.ts';

// Issue 31 "Must show", the database's faults: PostgreSQL restarted at once, and stopped for 20 s (fast
// shutdown, then started again on the same data). Same harness, figures and aims as
// faults-process.test.ts (see there), every aim asserted — for db-stop too since the last leader keeps
// checking through a database outage (issue 31 point 5):
//
//   PHAROS_TEST_DRIVER=postgres node --import tsx --test --test-reporter=spec test/api/faults-database.test.ts

await inOwnNetworkNamespace(import.meta.url, () => {
  faultTests(['db-restart']);
  faultTests(['db-stop']);
});
