import { faultTests, inOwnNetworkNamespace } from '../support/cluster-faults.ts';

// Issue 31 "Must show": a fault-injection suite on real processes and a real PostgreSQL, each fault
// with its figures (test/support/cluster-faults.ts: three `pharos serve`, six HTTP monitors every
// 10 s, four healthchecks pinged without pause at every instance, a webhook escalation policy; all
// inside a network namespace of the test's own, where the network cut is an nftables drop). This file:
// the leader's process — SIGKILL, SIGSTOP for 30 s, its database traffic cut for 30 s; the database
// faults are in faults-database.test.ts (two files: the runner runs them side by side). Printed per
// fault: take-over, longest time without a check, checks missed per monitor, duplicate alerts,
// acknowledged pings lost, outages stuck open, time until every instance is healthy again. Runs in the
// PostgreSQL matrix, as root (CI):
//
//   PHAROS_TEST_DRIVER=postgres node --import tsx --test --test-reporter=spec test/api/faults-*.test.ts
//
// Asserted today: no duplicate alert, no acknowledged ping lost, every instance healthy again without
// a restart (the wedge after a network cut, issue 31 point 1). Not yet (they fail on today's code, see
// docs/operations.md "Faults, measured"): checks resume within 15 s (no take-over of a frozen or
// cut-off leader, point 3), every alert delivered and no outage stuck open (a new leader judges checks
// against the monitor status it loaded at its start, point 2). They join with the leader lease:
// faultTests(FAULTS_OF_THIS_FILE) asserts every aim.

await inOwnNetworkNamespace(import.meta.url, () => faultTests(['sigkill', 'sigstop', 'cut'], ['no duplicate alert', 'no acknowledged ping lost', 'healthy again without restart']));
