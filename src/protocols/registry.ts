/**
 * The protocol registry: one line per protocol, nothing else (docs/architecture.md "Adding a
 * protocol"). `src/protocols/index.ts` derives everything else from these exports.
 */
export { dns } from './dns/index.ts';
export { docker } from './docker/index.ts';
export { gamedig } from './gamedig/index.ts';
export { group } from './group/index.ts';
export { grpc } from './grpc/index.ts';
export { http } from './http/index.ts';
export { icmp } from './icmp/index.ts';
export { mongodb } from './mongodb/index.ts';
export { mqtt } from './mqtt/index.ts';
export { mysql } from './mysql/index.ts';
export { ntp } from './ntp/index.ts';
export { port } from './port/index.ts';
export { postgres } from './postgres/index.ts';
export { redis } from './redis/index.ts';
export { smtp } from './smtp/index.ts';
export { snmp } from './snmp/index.ts';
export { tls } from './tls/index.ts';
export { websocket } from './websocket/index.ts';
