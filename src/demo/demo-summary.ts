import type { Kysely } from 'kysely'
import { matchReport, type ReportLine } from '../closing/index.js'
import type { Database } from '../store/index.js'

/** Where the books stand: what `bankrec demo` prints at the end. */
export type DemoSummary = {
  invoices: { total: number; byStatus: Record<string, number> }
  payments: {
    /** Every inflow (transfer legs left out). */
    total: number
    /** Inflows fully allocated to invoices. */
    matched: number
    /** Inflows allocated in part (an overpayment is one). */
    partiallyMatched: number
    unmatched: number
    amounts: ReportLine['amounts']
  }
  /** Open suggested matches waiting for a person. */
  suggestions: number
  /** Open exceptions by type (suggestions included). */
  exceptions: Record<string, number>
  alerts: { total: number; byType: Record<string, number> }
}

function counts(rows: ReadonlyArray<{ key: string; n: string | number | bigint }>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const row of [...rows].sort((a, b) => (a.key < b.key ? -1 : 1))) out[row.key] = Number(row.n)
  return out
}

function total(byKey: Record<string, number>): number {
  return Object.values(byKey).reduce((sum, n) => sum + n, 0)
}

export async function readDemoSummary(db: Kysely<Database>, asOf: Date): Promise<DemoSummary> {
  const invoices = await db
    .selectFrom('invoices as i')
    .leftJoin('invoice_state as s', 's.invoice_id', 'i.id')
    .select((eb) => [
      eb
        .case()
        .when('i.voided_at', 'is not', null)
        .then('void')
        .else(eb.fn.coalesce('s.status', eb.val('open')))
        .end()
        .as('key'),
      eb.fn.countAll<string>().as('n'),
    ])
    .groupBy('key')
    .execute()
  const exceptions = await db
    .selectFrom('match_exceptions')
    .select(['type as key', (eb) => eb.fn.countAll<string>().as('n')])
    .where('resolved_at', 'is', null)
    .groupBy('type')
    .execute()
  const alerts = await db
    .selectFrom('alert_notices')
    .select(['type as key', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('type')
    .execute()
  const report = await matchReport(db, { asOf })
  const byStatus = counts(invoices as Array<{ key: string; n: string }>)
  const exceptionCounts = counts(exceptions)
  const alertCounts = counts(alerts)
  return {
    invoices: { total: total(byStatus), byStatus },
    payments: {
      total: report.inflows.count,
      matched: report.matched.count,
      partiallyMatched: report.partiallyMatched.count,
      unmatched: report.unmatched.count,
      amounts: report.inflows.amounts,
    },
    suggestions: exceptionCounts.suggested_match ?? 0,
    exceptions: exceptionCounts,
    alerts: { total: total(alertCounts), byType: alertCounts },
  }
}

function listed(byKey: Record<string, number>): string {
  const entries = Object.entries(byKey)
  return entries.length === 0 ? 'none' : entries.map(([key, n]) => `${key} ${n}`).join(', ')
}

/** The summary as a person reads it. Pure. */
export function formatDemoSummary(summary: DemoSummary, elapsedSeconds: number): string {
  const { invoices, payments } = summary
  const amounts = Object.entries(payments.amounts)
    .map(([currency, amount]) => `${amount} ${currency}`)
    .join(', ')
  return [
    `Reconciliation summary (${elapsedSeconds.toFixed(1)} s)`,
    `  invoices     ${invoices.total}: ${listed(invoices.byStatus)}`,
    `  payments     ${payments.total}${amounts ? ` (${amounts})` : ''}`,
    `  matched      ${payments.matched} in full, ${payments.partiallyMatched} in part, ${payments.unmatched} not`,
    `  suggestions  ${summary.suggestions} waiting for a person`,
    `  exceptions   ${total(summary.exceptions)} open: ${listed(summary.exceptions)}`,
    `  alerts       ${summary.alerts.total}${summary.alerts.total > 0 ? `: ${listed(summary.alerts.byType)}` : ''}`,
    '',
  ].join('\n')
}
