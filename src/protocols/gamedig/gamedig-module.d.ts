/**
 * The part of the `gamedig` package (v5, ESM, shipped without types) the gamedig probe uses; shapes
 * from its README ("Usage", "Query options", "Return value").
 */
declare module 'gamedig' {
  import type { Socket } from 'node:dgram';
  /** Options of one query (times in ms). */
  export interface QueryOptions {
    type: string;
    host: string;
    port?: number;
    givenPortOnly?: boolean;
    socketTimeout?: number;
    attemptTimeout?: number;
    maxRetries?: number;
    requestPlayers?: boolean;
    requestRules?: boolean;
  }
  /** What a server said. */
  export interface QueryResult {
    name: string;
    map: string;
    password: boolean;
    numplayers: number;
    maxplayers: number;
    players: unknown[];
    bots: unknown[];
    version: string;
    ping: number;
  }
  /** A query runner; each instance opens its own UDP socket on first use (`queryRunner.udpSocket.socket`). */
  export class GameDig {
    constructor(runnerOpts?: { listenUdpPort?: number });
    query(options: QueryOptions): Promise<QueryResult>;
    queryRunner: { udpSocket: { socket: Socket | null } };
  }
}
