/**
 * `npx tsx bench/receiver-pg-statements.ts`: what the PostgreSQL queue's receiver write costs the database per
 * event, against the minimal receiver's `INSERT … ON CONFLICT DO NOTHING` (bench/minimal-receiver/durable-inbox.ts),
 * in figures that hold on a shared machine: WAL bytes per event (pg_current_wal_insert_lsn before and after each
 * statement, median over the statements; other sessions' WAL only adds to it), the server's execution time and its
 * planning time (EXPLAIN ANALYZE, median). The receiver's two writes are measured unnamed and as the prepared
 * statements it sends (·named). Writes of BENCH_BATCH (12) events of ~800 bytes, BENCH_STATEMENTS (100) of each:
 *   minimal  the minimal receiver's insert
 *   quiet    the queue's direct write: seen marks + BullMQ job rows + their events (postgres-webhook-job-rows.ts)
 *   inbox    the queue's storm write: seen marks + inbox rows (postgres-inbox-rows.ts)
 *   forward  the workers' forward of the inbox rows into job rows (not on the receiver's path)
 * Then, when the server runs on this machine, the backend's CPU per event from /proc for minimal, and for quiet and inbox
 * unnamed and named (BENCH_CPU_STATEMENTS, 1000 each). Options: TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test).
 * Its schemas are dropped afterwards.
 */
import { readFileSync } from 'node:fs'
import { sql } from 'kysely'
import pg from 'pg'
import { createPostgresWebhookEventQueue, type WebhookJob } from '../src/queue/index.js'
import { forwardInboxRows, writeInboxRows } from '../src/queue/postgres-inbox-rows.js'
import {
  webhookJobEntries,
  writeValues,
  writeWebhookJobRows,
} from '../src/queue/postgres-webhook-job-rows.js'
import { createTestDatabase, TEST_DATABASE_URL } from '../test/support/test-database.js'

const BATCH = Number(process.env.BENCH_BATCH ?? 12)
const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 100)

let next = 0
function job(): WebhookJob {
  const event = {
    id: `evt_bench_${next++}`,
    type: 'transactions.sync_available',
    createdAt: '2026-03-02T09:00:01.000Z',
    data: { connectionId: 'conn_0123456789abcdef', accountId: 'acc_0123456789', note: 'x'.repeat(600) },
  }
  const eventJson = JSON.stringify(event)
  return { eventId: event.id, type: event.type, event, eventJson, receivedAt: '2026-03-02T09:00:01.000Z' }
}
const batch = () => Array.from({ length: BATCH }, job)
const write = () => ({
  entries: webhookJobEntries(batch()),
  at: new Date(),
  cutoff: new Date(0),
  timestampMs: Date.now(),
})

const database = await createTestDatabase('bench_pg_statements')
const queueSchema = `${database.schema}_queue`
const backend = { kind: 'postgres' as const, connectionString: TEST_DATABASE_URL, schema: queueSchema }
// Creates BullMQ's schema.
const queue = createPostgresWebhookEventQueue({ db: database.db, backend, forward: false })
await queue.addBatch([job()])
await queue.close()
await sql`create table minimal_inbox (event_id text primary key, body jsonb not null,
  received_at timestamptz not null default now())`.execute(database.db)
const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
await client.connect()
await client.query(`set search_path to ${database.schema}`)

const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!
const compiled = (query: {
  compile(db: typeof database.db): { sql: string; parameters: readonly unknown[] }
}) => {
  const { sql: text, parameters } = query.compile(database.db)
  return { text, values: [...parameters] }
}
const lsn = async () =>
  (await client.query<{ l: string }>('select pg_current_wal_insert_lsn()::text as l')).rows[0]!.l

const statements: Record<string, () => { text: string; values: unknown[] }> = {
  minimal: () => {
    const jobs = batch()
    return {
      text: `insert into minimal_inbox (event_id, body) select * from unnest($1::text[], $2::jsonb[])
             on conflict (event_id) do nothing returning event_id`,
      values: [jobs.map((j) => j.eventId), jobs.map((j) => j.eventJson)],
    }
  },
  quiet: () => ({
    text: compiled(writeWebhookJobRows(queueSchema)).text,
    values: writeValues(write(), false),
  }),
  inbox: () => ({ text: compiled(writeInboxRows()).text, values: writeValues(write(), true) }),
  forward: () => compiled(forwardInboxRows({ queueSchema, limit: BATCH, timestampMs: Date.now() })),
}

console.log(`${STATEMENTS} statements of ${BATCH} events each, per event (medians):`)
// The receiver sends its two writes as named prepared statements (postgres-webhook-event-queue.ts): measured both
// ways, for the planning the name saves.
const runs = Object.entries(statements).flatMap(([name, make]) =>
  name === 'quiet' || name === 'inbox'
    ? [
        { name, make },
        { name: `${name}·named`, make },
      ]
    : [{ name, make }],
)
for (const { name, make } of runs) {
  const wal: number[] = []
  const exec: number[] = []
  const planning: number[] = []
  const named = name.endsWith('·named')
  if (named) await client.query(`prepare bench_${name.replace('·', '_')} as ${make().text}`)
  for (let i = 0; i < STATEMENTS; i++) {
    const { text, values } = make()
    // EXPLAIN EXECUTE takes no bound parameters: the values go in as literals, typed by the prepared statement.
    const literal = (v: unknown) => client.escapeLiteral(v instanceof Date ? v.toISOString() : String(v))
    const run = named ? `execute bench_${name.replace('·', '_')}(${values.map(literal).join(', ')})` : text
    const before = await lsn()
    const { rows } = await client.query(`explain (analyze, format json) ${run}`, named ? [] : values)
    const after = await lsn()
    const { rows: diff } = await client.query<{ d: string }>(
      'select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text as d',
      [after, before],
    )
    wal.push(Number(diff[0]!.d) / BATCH)
    const plan = (rows[0] as { 'QUERY PLAN': [{ 'Execution Time': number; 'Planning Time': number }] })[
      'QUERY PLAN'
    ][0]
    exec.push((plan['Execution Time'] * 1000) / BATCH)
    planning.push((plan['Planning Time'] * 1000) / BATCH)
  }
  console.log(
    `  ${name.padEnd(12)} WAL ${median(wal).toFixed(0).padStart(5)} B   server time ${median(exec).toFixed(1).padStart(5)} µs` +
      `   planning ${median(planning).toFixed(1).padStart(5)} µs`,
  )
}

// What EXPLAIN leaves out (parse, analysis, the protocol, the commit): the backend's own CPU time, from /proc when
// the server runs on this machine, over BENCH_CPU_STATEMENTS (1000) writes sent as the receiver sends them,
// unnamed and named. /proc counts in 10 ms ticks, hence the many statements.
const backendPid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
const backendCpuUs = (): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${backendPid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 1e4
  } catch {
    return undefined
  }
}
const CPU_STATEMENTS = Number(process.env.BENCH_CPU_STATEMENTS ?? 1000)
if (backendCpuUs() === undefined)
  console.log('backend CPU: the server is not a process of this machine, left out')
else {
  console.log(`backend CPU per event over ${CPU_STATEMENTS} statements of ${BATCH} events (parse to commit):`)
  const ways: [string, boolean[]][] = [
    ['minimal', [false]],
    ['quiet', [false, true]],
    ['inbox', [false, true]],
  ]
  for (const [name, namings] of ways) {
    for (const named of namings) {
      const started = backendCpuUs()!
      for (let i = 0; i < CPU_STATEMENTS; i++) {
        const { text, values } = statements[name]!()
        await client.query(named ? { name: `cpu_${name}`, text, values } : { text, values })
      }
      const perEvent = (backendCpuUs()! - started) / CPU_STATEMENTS / BATCH
      console.log(`  ${(named ? `${name}·named` : name).padEnd(12)} ${perEvent.toFixed(1).padStart(5)} µs`)
    }
  }
}
await client.end()
await sql`drop schema if exists ${sql.id(queueSchema)} cascade`.execute(database.db)
await database.drop()
