import type { AgentInfo } from '../domain/probe.ts';
import type { Region } from '../domain/regions.ts';
import type { Db } from './db.ts';

interface AgentRow {
  id: string;
  name: string;
  region: Region;
  version: string;
  source_address: string | null;
  first_seen: number;
  last_seen: number;
  token_id: string | null;
}

/** An agent as stored: its info and the probe token (`key_…`) it polls with (null: stored before tokens had regions). */
export type StoredAgent = AgentInfo & { tokenId: string | null };

const toInfo = (r: AgentRow): StoredAgent => ({
  id: r.id,
  name: r.name,
  region: r.region,
  version: r.version,
  sourceAddress: r.source_address,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  tokenId: r.token_id,
});

/** Remote probe agents seen, and the ids of result batches already stored (for idempotent retries). */
export function probesStore(db: Db) {
  const upsert = db.prepare(
    `INSERT INTO probe_agents(id, name, region, version, source_address, first_seen, last_seen, token_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET name = excluded.name, region = excluded.region, version = excluded.version,
       source_address = excluded.source_address, last_seen = excluded.last_seen, token_id = excluded.token_id`,
  );
  const touch = db.prepare('UPDATE probe_agents SET last_seen = ? WHERE id = ?');
  const seenSince = db.prepare<[number], AgentRow>('SELECT * FROM probe_agents WHERE last_seen >= ? ORDER BY first_seen, id');
  const insertBatch = db.prepare('INSERT OR IGNORE INTO probe_batches(id, received_at) VALUES (?, ?)');
  const forget = db.prepare('DELETE FROM probe_agents WHERE id = ?');
  const pruneBatches = db.prepare('DELETE FROM probe_batches WHERE received_at < ?');
  const pruneAgents = db.prepare('DELETE FROM probe_agents WHERE last_seen < ?');

  return {
    /** Inserts or refreshes an agent (its first poll) polling with the probe token `tokenId` (`key_…`). */
    saveAgent(a: AgentInfo, tokenId: string): void {
      upsert.run(a.id, a.name, a.region, a.version, a.sourceAddress, a.firstSeen, a.lastSeen, tokenId);
    },
    /** Forgets an agent (replaced by a newer one of its token over `probe.agents_per_token`). */
    forgetAgent(id: string): void {
      forget.run(id);
    },
    /** Records that an agent was heard from at `at` (epoch ms). */
    touchAgent(id: string, at: number): void {
      touch.run(at, id);
    },
    /** Agents heard from at or after `since` (epoch ms), oldest first, with their tokens. */
    agentsSeenSince: (since: number): StoredAgent[] => seenSince.all(since).map(toInfo),
    /**
     * Claims a batch id. Call inside the transaction that stores the batch's results.
     * @returns false when the batch was stored before (a retry): store nothing of it
     */
    claimBatch: (batchKey: string, now: number): boolean => insertBatch.run(batchKey, now).changes === 1,
    /** Forgets batch ids and agents older than `cutoff` (epoch ms); returns rows deleted. */
    pruneBefore: (cutoff: number): number => pruneBatches.run(cutoff).changes + pruneAgents.run(cutoff).changes,
  };
}

/** The probes store's interface. */
export type ProbesStore = ReturnType<typeof probesStore>;
