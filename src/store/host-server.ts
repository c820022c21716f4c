/** The store host thread's server loop (filled in by store/host-client.ts's counterpart; see src/store-host.ts). */
export function serveStoreHost(): void {}
