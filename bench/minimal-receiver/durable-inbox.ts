import { Redis } from 'ioredis'
import pg from 'pg'

/** A durable write of one event: 'queued' when its id is new, 'duplicate' when it was written before. */
export type DurableInbox = {
  write(eventId: string, body: Buffer): Promise<'queued' | 'duplicate'>
  close(): Promise<void>
}

type Pending = { eventId: string; body: Buffer; done: (fresh: boolean) => void; fail: (e: unknown) => void }

/**
 * Group commit per event-loop turn: writes asked for in one turn go out together in one round trip at the
 * setImmediate after it, and each caller resolves once that batch is stored.
 */
function groupCommit(flush: (batch: Pending[]) => Promise<boolean[]>): DurableInbox['write'] {
  let batch: Pending[] = []
  const run = () => {
    const taken = batch
    batch = []
    flush(taken).then(
      (fresh) => taken.forEach((p, i) => p.done(fresh[i]!)),
      (error: unknown) => taken.forEach((p) => p.fail(error)),
    )
  }
  return (eventId, body) =>
    new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(run)
      batch.push({ eventId, body, done: (fresh) => resolve(fresh ? 'queued' : 'duplicate'), fail: reject })
    })
}

// SET NX for the dedupe mark and RPUSH of the fresh ones, for the whole batch in one atomic script.
const PUSH_FRESH = `
local fresh = {}
for i = 1, #ARGV, 2 do
  if redis.call('SET', KEYS[2] .. ARGV[i], '1', 'NX', 'EX', 259200) then
    redis.call('RPUSH', KEYS[1], ARGV[i + 1])
    fresh[#fresh + 1] = 1
  else
    fresh[#fresh + 1] = 0
  end
end
return fresh`

export function createRedisInbox(url: string, prefix: string): DurableInbox {
  const redis = new Redis(url)
  const script = { sha: '' }
  const flush = async (batch: Pending[]): Promise<boolean[]> => {
    const args = batch.flatMap((p) => [p.eventId, p.body])
    const keys = [`${prefix}:inbox`, `${prefix}:seen:`]
    if (!script.sha) script.sha = (await redis.script('LOAD', PUSH_FRESH)) as string
    const fresh = (await redis.evalsha(script.sha, 2, ...keys, ...args)) as number[]
    return fresh.map((f) => f === 1)
  }
  return { write: groupCommit(flush), close: async () => void (await redis.quit()) }
}

/** `INSERT … ON CONFLICT DO NOTHING` of the batch in one statement, so one commit per turn. */
export function createPostgresInbox(connectionString: string, table: string): DurableInbox {
  const pool = new pg.Pool({ connectionString, max: 4 })
  const flush = async (batch: Pending[]): Promise<boolean[]> => {
    const { rows } = await pool.query<{ event_id: string }>(
      `insert into ${table} (event_id, body)
       select * from unnest($1::text[], $2::jsonb[]) on conflict (event_id) do nothing returning event_id`,
      [batch.map((p) => p.eventId), batch.map((p) => p.body.toString('utf8'))],
    )
    const fresh = new Set(rows.map((r) => r.event_id))
    return batch.map((p) => fresh.delete(p.eventId))
  }
  return { write: groupCommit(flush), close: () => pool.end() }
}

export async function createPostgresInboxTable(connectionString: string, table: string): Promise<void> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  await client.query(
    `create table if not exists ${table} (event_id text primary key, body jsonb not null,
       received_at timestamptz not null default now())`,
  )
  await client.end()
}

export async function dropPostgresInboxTable(connectionString: string, table: string): Promise<void> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  await client.query(`drop table if exists ${table}`)
  await client.end()
}
