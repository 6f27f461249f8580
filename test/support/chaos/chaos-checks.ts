import { Decimal } from 'decimal.js'
import { sql } from 'kysely'
import { WEBHOOK_EVENTS_QUEUE } from '../../../src/queue/index.js'
import type { AlertEndpoint } from '../alert-endpoint.js'
import type { AppEndpoint } from './app-endpoint.js'
import type { Cluster } from './cluster.js'
import { readCursorTransitions, repeatedPages } from './cursor-audit.js'
import { expectedInvoices } from './expected-invoices.js'
import type { PlannedInvoice } from './invoice-plan.js'
import { mirrorDifferences } from './mirror-check.js'

export type ChaosCheck = {
  name: string
  /** How many things were checked (rows, invoices, events, incidents). */
  checked: number
  violations: string[]
}

export type ChaosChecksInput = {
  cluster: Cluster
  connectionIds: string[]
  invoices: PlannedInvoice[]
  /** bankrec's invoices as GET /api/invoices lists them. */
  invoicesNow: any[]
  episodes: Array<{ connectionId: string; startedAt: string }>
  transfers: Array<{ id: string; clientReference: string }>
  app: AppEndpoint
  slack: AlertEndpoint
  /** Webhook event ids the receiver answered 2xx at least once. */
  acceptedWebhookEvents: ReadonlySet<string>
  unexpectedExits: number
  /** Times (ms) a worker was SIGKILLed or lost its database sessions. */
  workerDeaths: readonly number[]
}

const LIMIT = 25

/** Every check of the chaos run, each with its violations (none when it holds). */
export async function runChaosChecks(input: ChaosChecksInput): Promise<ChaosCheck[]> {
  const { cluster } = input
  const db = cluster.database.db
  const truth = (await cluster.sandbox.request('GET', '/_sandbox/state')).body
  const inScope = (row: any) => input.connectionIds.includes(row.connectionId)
  const checks: ChaosCheck[] = []

  const statuses: string[] = []
  for (const id of input.connectionIds) {
    const mirrored = await db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirst()
    const bank = (await cluster.bank.connections.get(id)).status
    if (mirrored?.status !== bank)
      statuses.push(`connection ${id} is ${mirrored?.status} in the mirror, ${bank} at the bank`)
  }
  checks.push({
    name: 'mirror equals the bank row for row',
    checked: truth.transactions.filter(inScope).length + truth.accounts.filter(inScope).length,
    violations: [...(await mirrorDifferences(db, truth, input.connectionIds, LIMIT)), ...statuses],
  })

  const transitions = await readCursorTransitions(db, cluster.schema)
  checks.push({
    name: 'no sync page applied twice',
    checked: transitions.length,
    violations: repeatedPages(transitions),
  })

  const allocations = await db
    .selectFrom('allocations')
    .select(['transaction_id', 'invoice_id', 'amount', 'write_off', 'settled'])
    .where('reversed_at', 'is', null)
    .execute()
  const settledByInvoice = new Map<string, Decimal>()
  for (const a of allocations) {
    if (!a.settled) continue
    settledByInvoice.set(
      a.invoice_id,
      (settledByInvoice.get(a.invoice_id) ?? new Decimal(0)).plus(String(a.amount)),
    )
  }
  const now = new Map(input.invoicesNow.map((invoice) => [invoice.id as string, invoice]))
  const sumViolations: string[] = []
  const expectedViolations: string[] = []
  const expected = expectedInvoices(input.invoices, truth.transactions.filter(inScope))
  for (const invoice of input.invoices) {
    const state = now.get(invoice.id)
    if (!state) {
      sumViolations.push(`invoice ${invoice.id} is missing from GET /api/invoices`)
      continue
    }
    const paid = new Decimal(state.amountPaid)
    const allocated = settledByInvoice.get(invoice.id) ?? new Decimal(0)
    if (!paid.equals(allocated))
      sumViolations.push(`invoice ${invoice.id}: amountPaid ${paid}, settled allocations ${allocated}`)
    const wanted = expected.amountPaid.get(invoice.id)!
    if (!paid.equals(wanted))
      expectedViolations.push(
        `invoice ${invoice.id} (${invoice.number}): amountPaid ${paid}, expected ${wanted}`,
      )
  }
  checks.push({
    name: "every invoice's amountPaid equals the sum of its settled allocations",
    checked: input.invoices.length,
    violations: cut(sumViolations),
  })
  checks.push({
    name: "every invoice's amountPaid equals the value computed from the bank's truth",
    checked: input.invoices.length,
    violations: cut([...expected.unsound, ...expectedViolations]),
  })

  const { rows: overAllocated } = await sql<{ transaction_id: string; allocated: string; amount: string }>`
    select a.transaction_id, sum(a.amount + a.write_off)::text as allocated, t.amount::text as amount
    from allocations a left join transactions t on t.id = a.transaction_id
    where a.reversed_at is null
    group by a.transaction_id, t.amount
    having t.amount is null or sum(a.amount + a.write_off) > greatest(t.amount, 0)
  `.execute(db)
  checks.push({
    name: 'no transaction over-allocated',
    checked: new Set(allocations.map((a) => a.transaction_id)).size,
    violations: cut(
      overAllocated.map((r) =>
        r.amount === null
          ? `transaction ${r.transaction_id} holds ${r.allocated} of allocations but is not in the mirror`
          : `transaction ${r.transaction_id} of ${r.amount} holds ${r.allocated} of allocations`,
      ),
    ),
  })

  checks.push(incidentCheck(input))
  checks.push(await appEventCheck(input))

  const processed = new Set(
    (await db.selectFrom('processed_events').select('event_id').execute()).map((r) => r.event_id),
  )
  checks.push({
    name: 'zero events lost: every webhook accepted (2xx) is in processed_events',
    checked: input.acceptedWebhookEvents.size,
    violations: cut(
      await Promise.all(
        [...input.acceptedWebhookEvents]
          .filter((id) => !processed.has(id))
          .map(
            async (id) =>
              `event ${id} was accepted but never processed (${await cluster.describeJob(WEBHOOK_EVENTS_QUEUE, id)})`,
          ),
      ),
    ),
  })
  checks.push({
    name: 'no bankrec process exited by itself',
    checked: 1,
    violations:
      input.unexpectedExits > 0 ? [`${input.unexpectedExits} process(es) exited without being killed`] : [],
  })
  return checks
}

export type SlackNotice = {
  id: string
  incidentId: string
  type: string
  connectionId: string | undefined
  at: number
  answerLost: boolean
}

/**
 * The alert sinks' own timeout (src/alert-delivery/alert-sinks.ts): the longest a send can be in flight, so a
 * death up to this long before a receipt can still be the death between that send and its record.
 */
const SEND_IN_FLIGHT_MS = 10_000

/**
 * Each re-authentication episode: one incident, alerted once, recovered once; no other notice. A notice reaches
 * Slack again only as docs/reliability.md allows: at most once more per worker death (a SIGKILL, or every session
 * lost) between a send and its record (from a send's longest flight before the first receipt to the last), and
 * once more per receipt whose answer its sender never got (it gave up waiting, so it could not know).
 */
function incidentCheck(input: ChaosChecksInput): ChaosCheck {
  const violations: string[] = []
  const notices: SlackNotice[] = []
  for (const message of input.slack.received) {
    const blocks = (message.body as { blocks?: Array<{ type: string; elements?: Array<{ text?: string }> }> })
      .blocks
    const context = blocks?.find((block) => block.type === 'context')?.elements?.[0]?.text ?? ''
    const id = /\bid (\S+)$/.exec(context)?.[1]
    if (!id) {
      violations.push(`a Slack message without a notice id: ${message.raw.slice(0, 200)}`)
      continue
    }
    const [incidentId, type = ''] = id.split(':')
    if (!incidentId) continue
    notices.push({
      id,
      incidentId,
      type,
      connectionId: input.connectionIds.find((c) => message.raw.includes(c)),
      at: message.at,
      answerLost: message.answerLost,
    })
  }
  violations.push(...unexplainedRepeats(notices, input.workerDeaths))
  const incidents = new Map<string, SlackNotice[]>()
  for (const notice of notices)
    incidents.set(notice.incidentId, [...(incidents.get(notice.incidentId) ?? []), notice])
  for (const [incidentId, list] of incidents) {
    const types = [...new Set(list.map((n) => n.type))].sort()
    if (types.join(',') !== 'alert,recovery')
      violations.push(`incident ${incidentId} (${list[0]!.connectionId}) sent ${types.join(', ')}`)
  }
  for (const connectionId of input.connectionIds) {
    const episodes = input.episodes.filter((e) => e.connectionId === connectionId).length
    const alerted = [...incidents.values()].filter((list) => list[0]!.connectionId === connectionId).length
    if (alerted !== episodes)
      violations.push(
        `connection ${connectionId}: ${episodes} re-authentication episode(s), ${alerted} incident(s)`,
      )
  }
  return {
    name: 'each incident alerted once with one recovery (a repeat only per worker death or lost answer)',
    checked: input.episodes.length,
    violations,
  }
}

/** Every app event recorded reached the app and was processed once; paid invoices and transfers were told. */
async function appEventCheck(input: ChaosChecksInput): Promise<ChaosCheck> {
  const rows = await input.cluster.database.db
    .selectFrom('app_events')
    .select(['id', 'type', 'delivered_at'])
    .execute()
  const recorded = new Set(rows.map((r) => r.id))
  const violations: string[] = []
  for (const row of rows) {
    if (!row.delivered_at) violations.push(`app event ${row.id} (${row.type}) was never delivered`)
    else if (!input.app.processed.has(row.id))
      violations.push(`app event ${row.id} (${row.type}) is marked delivered but never reached the app`)
  }
  for (const id of input.app.processed.keys())
    if (!recorded.has(id)) violations.push(`the app received event ${id}, which bankrec never recorded`)
  const refused = input.app.refused()
  if (refused.badSignature > 0)
    violations.push(`${refused.badSignature} deliveries had a bad signature or body`)
  const events = [...input.app.processed.values()]
  const paidEvents = new Set(events.filter((e) => e.type === 'invoice.paid').map((e) => e.data.invoiceId))
  for (const invoice of input.invoicesNow) {
    if (invoice.id.startsWith('chaos-inv-') && invoice.status === 'paid' && !paidEvents.has(invoice.id))
      violations.push(`invoice ${invoice.id} is paid but the app never heard invoice.paid`)
  }
  for (const transfer of input.transfers) {
    const told = events.filter(
      (e) =>
        e.type.startsWith('transfer.') &&
        e.type !== 'transfer.legs_matched' &&
        e.data.transferId === transfer.id,
    )
    if (told.length !== 1) violations.push(`transfer ${transfer.id}: ${told.length} distinct outcome events`)
  }
  return {
    name: 'every app event delivered at least once and processed once by the app',
    checked: rows.length,
    violations: cut(violations),
  }
}

function cut(violations: string[]): string[] {
  return violations.length > LIMIT
    ? [...violations.slice(0, LIMIT), `… and ${violations.length - LIMIT} more`]
    : violations
}

/** Each notice received more often than the worker deaths and lost answers around its receipts explain. */
export function unexplainedRepeats(
  notices: readonly SlackNotice[],
  workerDeaths: readonly number[],
): string[] {
  const violations: string[] = []
  const sent = new Map<string, SlackNotice[]>()
  for (const notice of notices) sent.set(notice.id, [...(sent.get(notice.id) ?? []), notice])
  for (const [id, receipts] of sent) {
    if (receipts.length === 1) continue
    const times = receipts.map((r) => r.at)
    const [first, last] = [Math.min(...times), Math.max(...times)]
    const deaths = workerDeaths.filter((at) => at > first - SEND_IN_FLIGHT_MS && at <= last).length
    const lost = receipts.filter((r) => r.answerLost && r.at < last).length
    if (receipts.length - 1 > deaths + lost)
      violations.push(
        `notice ${id} reached Slack ${receipts.length} times (at ${times.map(iso).join(', ')}), ` +
          `with ${deaths} worker death(s) from ${SEND_IN_FLIGHT_MS / 1000} s before the first to the last ` +
          `(deaths at ${workerDeaths.map(iso).join(', ') || 'none'}) and ${lost} answer(s) the sender never got`,
      )
  }
  return violations
}

const iso = (ms: number) => new Date(ms).toISOString()
