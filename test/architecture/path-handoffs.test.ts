import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Queue } from 'bullmq'
import pg from 'pg'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { APP_EVENTS_CHANNEL_PREFIX } from '../../src/store/index.js'
import { isRefreshJobId } from '../../src/queue/index.js'
import { startIdlePipeline, type IdlePipeline } from '../support/one-paid-delivery.js'
import { TEST_DATABASE_URL } from '../support/test-database.js'
import { API_TOKEN } from '../sidecar/sidecar-fixture.js'

/**
 * One `transactions.sync_available` event is measured in hand-offs, not files: the jobs that carried it from one
 * stage to the next, the steps that ran in place, and the NOTIFY that woke the app-event sender. The table in
 * docs/architecture.md says what they are; this test runs the event on each queue backend and holds the table to
 * what happened.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const HEADING = "## One webhook's hand-offs"

type HandOff = { from: string; to: string; how: string }

/** The table's rows: `| from | to | how |`, where `how` is `queue \`name\``, `in place` or `NOTIFY`. */
function documentedHandOffs(): HandOff[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
  const start = doc.indexOf(HEADING)
  if (start === -1) throw new Error(`docs/architecture.md has no section "${HEADING}"`)
  const end = doc.indexOf('\n## ', start + HEADING.length)
  const rows = doc
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
  return rows.slice(1).map(([from, to, how]) => ({ from: from!, to: to!, how: how! }))
}

const queueOf = (how: string) => /^queue `([\w-]+)`$/.exec(how)?.[1]

/** Completed jobs per queue, read off the sidecar's own Prometheus metrics. */
async function jobsRunByQueue(url: string): Promise<Map<string, number>> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
  ).text()
  const runs = new Map<string, number>()
  for (const match of text.matchAll(/^bankrec_job_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
    const queue = /queue="([^"]+)"/.exec(match[1]!)?.[1]
    if (queue) runs.set(queue, (runs.get(queue) ?? 0) + Number(match[2]))
  }
  return runs
}

describe('the hand-offs docs/architecture.md lists', () => {
  const handOffs = documentedHandOffs()

  it('are one queue hop, the in-place steps, and one NOTIFY', () => {
    expect(handOffs.filter((h) => queueOf(h.how)).map((h) => queueOf(h.how))).toEqual(['webhook-events'])
    expect(handOffs.filter((h) => h.how === 'NOTIFY')).toHaveLength(1)
    expect(handOffs.filter((h) => h.how === 'in place').length).toBeGreaterThan(0)
    expect(handOffs.filter((h) => !queueOf(h.how) && h.how !== 'NOTIFY' && h.how !== 'in place')).toEqual([])
  })
})

describe.each(['postgres', 'redis'] as const)('one sync_available event on the %s queue', (kind) => {
  let pipeline: IdlePipeline | undefined
  let listener: pg.Client | undefined

  afterAll(async () => {
    vi.restoreAllMocks()
    await listener?.end()
    await pipeline?.close()
  })

  it('takes the hand-offs the table lists: one job, the rest in place, one NOTIFY wake-up', async () => {
    pipeline = await startIdlePipeline(`handoffs_${kind}`, kind)
    const { sidecar } = pipeline
    // Every job added in this process (the spies call through: the jobs are real).
    const add = vi.spyOn(Queue.prototype, 'add')
    const addBulk = vi.spyOn(Queue.prototype, 'addBulk')
    const added = () => [
      ...add.mock.calls.map((call, i) => ({
        queue: (add.mock.contexts[i] as Queue).name,
        id: call[2]?.jobId,
      })),
      ...addBulk.mock.calls.flatMap((call, i) =>
        call[0].map((job) => ({ queue: (addBulk.mock.contexts[i] as Queue).name, id: job.opts?.jobId })),
      ),
    ]

    listener = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await listener.connect()
    await listener.query(`set search_path to "${sidecar.schema}"`)
    const { rows } = await listener.query<{ channel: string }>(
      `select $1::text || md5(current_schema()) as channel`,
      [APP_EVENTS_CHANNEL_PREFIX],
    )
    const notifications: string[] = []
    listener.on('notification', (message) => notifications.push(message.payload ?? ''))
    await listener.query(`listen ${rows[0]!.channel}`)

    const before = await jobsRunByQueue(sidecar.url)
    const eventsBefore = (await pipeline.appEvents()).length
    await pipeline.payAndAwaitInvoicePaid()
    const ran = async (queue: string) =>
      ((await jobsRunByQueue(sidecar.url)).get(queue) ?? 0) - (before.get(queue) ?? 0)

    const handOffs = documentedHandOffs()
    const hops = handOffs.map((h) => queueOf(h.how)).filter((q): q is string => q !== undefined)
    // The queue hops the table lists each carried the event once (the event's job goes on after matching has
    // told the app: the re-reads of the connection come after the path).
    for (const queue of hops) {
      await vi.waitFor(async () => expect(await ran(queue), queue).toBeGreaterThan(0), { timeout: 30_000 })
      expect(await ran(queue), queue).toBe(1)
    }
    // Nothing else went through a queue on the way: no sync, matching or app-event job was added for the event.
    // An owed re-read of the connection (a delayed refresh job) is work after the path, not a hand-off on it.
    const onPath = added().filter((job) => !hops.includes(job.queue) && !(job.id && isRefreshJobId(job.id)))
    expect(onPath).toEqual([])
    // The app-event sender woke on the commit's NOTIFY: one per outbox row of the run, the invoice.paid among them.
    const newEvents = (await pipeline.appEvents()).length - eventsBefore
    await vi.waitFor(() => expect(notifications.length).toBeGreaterThanOrEqual(newEvents))
    expect(newEvents).toBeGreaterThan(0)

    // The spies see what a stage adds: a sync asked for now is a connection-sync job.
    const [connection] = await sidecar.context.store.db.selectFrom('connections').select('id').execute()
    await sidecar.context.requestSync(connection!.id, 'path-handoffs probe')
    expect(added().map((job) => job.queue)).toContain('connection-sync')
  }, 90_000)
})
