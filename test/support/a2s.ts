import { createSocket, type Socket } from 'node:dgram';

/** What the fake Source server says in its A2S_INFO answer; `silent` drops every query. */
export interface A2sState {
  name: string;
  map: string;
  players: number;
  maxPlayers: number;
  password: boolean;
  silent: boolean;
}

/** A running fake: its UDP port, its state (change it between checks), the addresses that asked, and stop(). */
export interface A2sServer {
  port: number;
  state: A2sState;
  from: string[];
  stop(): Promise<void>;
}

const cstring = (s: string) => Buffer.from(`${s}\0`, 'utf8');

/**
 * A Source-engine game server's query port as Valve's wiki "Server queries" describes A2S_INFO: a
 * request `FF FF FF FF 'T' "Source Engine Query\0"` gets one unsplit `FF FF FF FF 'I'` answer
 * (protocol 17, name, map, folder, game, app id 730, players, max players, bots 0, dedicated,
 * Linux, visibility, VAC 1, version, no extra data). A2S_PLAYER (`'U'`) gets the challenge `'A'`
 * answer and then an empty list. Enough for gamedig's `valve` protocol (Counter-Strike 2 and the
 * other Source games); listens on 127.0.0.1.
 */
export async function startA2sServer(initial: Partial<A2sState> = {}): Promise<A2sServer> {
  const state: A2sState = { name: 'Pharos test server', map: 'de_dust2', players: 3, maxPlayers: 16, password: false, silent: false, ...initial };
  const from: string[] = [];
  const socket: Socket = createSocket('udp4');
  const header = Buffer.from([0xff, 0xff, 0xff, 0xff]);
  socket.on('message', (req, rinfo) => {
    from.push(rinfo.address);
    if (state.silent || req.length < 5 || req.readInt32LE(0) !== -1) return;
    const send = (b: Buffer) => socket.send(Buffer.concat([header, b]), rinfo.port, rinfo.address);
    const kind = req[4];
    if (kind === 0x54) {
      send(Buffer.concat([
        Buffer.from([0x49, 17]),
        cstring(state.name), cstring(state.map), cstring('csgo'), cstring('Counter-Strike 2'),
        Buffer.from([0xda, 0x02, state.players, state.maxPlayers, 0, 0x64, 0x6c, state.password ? 1 : 0, 1]),
        cstring('1.40.0.0'),
        Buffer.from([0]),
      ]));
    } else if (kind === 0x55) {
      const challenge = req.length >= 9 ? req.readUInt32LE(5) : 0xffffffff;
      if (challenge === 0xffffffff) send(Buffer.from([0x41, 0x12, 0x34, 0x56, 0x78]));
      else send(Buffer.from([0x44, 0]));
    }
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return {
    port: socket.address().port,
    state,
    from,
    stop: () => new Promise<void>((r) => socket.close(() => r())),
  };
}
