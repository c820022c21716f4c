import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { BSON, type Document } from 'mongodb';

/** What the fake answers; change it between checks. */
export interface MongoFakeState {
  /** Commands needing a signed-in user (as a mongod with `--auth`): answered with code 13 Unauthorized. */
  authRequired: Set<string>;
  /** The reply of `serverStatus` (ok: 1 added). */
  serverStatus: Document;
}

/** A running fake: its port, state, the commands it was sent (by name), the addresses that connected, and stop(). */
export interface MongoFake {
  port: number;
  state: MongoFakeState;
  commands: string[];
  from: string[];
  stop(): Promise<void>;
}

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;

function frame(requestId: number, responseTo: number, opCode: number, body: Buffer): Buffer {
  const head = Buffer.alloc(16);
  head.writeInt32LE(16 + body.length, 0);
  head.writeInt32LE(requestId, 4);
  head.writeInt32LE(responseTo, 8);
  head.writeInt32LE(opCode, 12);
  return Buffer.concat([head, body]);
}

/**
 * A minimal MongoDB server on 127.0.0.1 speaking the wire protocol as MongoDB's "Wire Protocol"
 * reference describes it: the driver's first `hello`/`isMaster` in an OP_QUERY on `admin.$cmd`
 * (answered with OP_REPLY), then OP_MSG commands (one kind-0 section; kind-1 sections skipped),
 * answered with OP_MSG. It says it is a standalone MongoDB 7.0 (wire version 21) and answers
 * `hello`/`isMaster`, `ping`, `buildInfo`, `serverStatus`, `endSessions`; `saslStart` (any SASL
 * mechanism: a login) always fails as a wrong password does (`Authentication failed.`, code 18);
 * anything else is `no such command: '<name>'` (code 59). No real storage, no SCRAM.
 */
export async function startMongoFake(): Promise<MongoFake> {
  const state: MongoFakeState = { authRequired: new Set(), serverStatus: { host: 'fake', version: '7.0.0', uptime: 42, repl: { primary: 'db1:27017' } } };
  const commands: string[] = [];
  const from: string[] = [];
  let ids = 1;
  let connections = 0;
  const sockets = new Set<Socket>();
  const hello = (legacy: boolean): Document => ({
    helloOk: true,
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ++connections,
    minWireVersion: 0,
    maxWireVersion: 21,
    readOnly: false,
    ok: 1,
  });
  const answer = (cmd: Document): Document => {
    const name = Object.keys(cmd)[0] ?? '';
    commands.push(name);
    const lower = name.toLowerCase();
    if (lower === 'hello' || lower === 'ismaster') return hello(lower === 'ismaster');
    if (state.authRequired.has(name)) return { ok: 0, errmsg: `command ${name} requires authentication`, code: 13, codeName: 'Unauthorized' };
    if (name === 'ping' || name === 'endSessions') return { ok: 1 };
    if (name === 'buildInfo' || name === 'buildinfo') return { version: '7.0.0', versionArray: [7, 0, 0, 0], ok: 1 };
    if (name === 'serverStatus') return { ...state.serverStatus, ok: 1 };
    if (name === 'saslStart' || name === 'authenticate') return { ok: 0, errmsg: 'Authentication failed.', code: 18, codeName: 'AuthenticationFailed' };
    return { ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' };
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    from.push(socket.remoteAddress ?? '');
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 16 && buf.length >= buf.readInt32LE(0)) {
        const len = buf.readInt32LE(0);
        const msg = buf.subarray(0, len);
        buf = buf.subarray(len);
        const requestId = msg.readInt32LE(4);
        const opCode = msg.readInt32LE(12);
        if (opCode === OP_QUERY) {
          let at = 20;
          while (msg[at] !== 0) at++; // fullCollectionName
          at += 1 + 8; // its NUL, numberToSkip, numberToReturn
          const query = BSON.deserialize(msg.subarray(at, at + msg.readInt32LE(at)));
          const doc = BSON.serialize(answer(query));
          const body = Buffer.alloc(20);
          body.writeInt32LE(1, 16); // numberReturned (flags 0, cursorID 0, startingFrom 0)
          socket.write(frame(ids++, requestId, OP_REPLY, Buffer.concat([body, doc])));
        } else if (opCode === OP_MSG) {
          let at = 20;
          let cmd: Document = {};
          while (at < len) {
            const kind = msg[at]!;
            const size = msg.readInt32LE(at + 1);
            if (kind === 0) cmd = BSON.deserialize(msg.subarray(at + 1, at + 1 + size));
            at += 1 + size;
          }
          const doc = BSON.serialize(answer(cmd));
          socket.write(frame(ids++, requestId, OP_MSG, Buffer.concat([Buffer.alloc(4), Buffer.from([0]), doc])));
        } else {
          socket.destroy();
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    state,
    commands,
    from,
    stop: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
