import { faultTests, inOwnNetworkNamespace } from '../support/cluster-faults.ts';

// Issue 31 "Must show", the database's faults: PostgreSQL stopped for 20 s (fast shutdown, then
// started again on the same data), and restarted at once. Same harness, figures and aims as
// faults-process.test.ts (see there):
//
//   PHAROS_TEST_DRIVER=postgres node --import tsx --test --test-reporter=spec test/api/faults-database.test.ts
//
// Not yet asserted (they fail on today's code): checks resume within 15 s (a database outage stops
// every check in a cluster, issue 31 point 5: ~24 s without a check for a 20 s outage), every alert
// delivered and no outage stuck open (after the restart another instance often leads, with the monitor
// status it loaded at its start, point 2).

await inOwnNetworkNamespace(import.meta.url, () => faultTests(['db-stop', 'db-restart'], ['no duplicate alert', 'no acknowledged ping lost', 'healthy again without restart']));
