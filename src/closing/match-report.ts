import { Decimal } from 'decimal.js'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../store/index.js'

/** A count and its amounts, one decimal string per currency (amounts of different currencies never add up). */
export type ReportLine = { count: number; amounts: Record<string, string> }

/** The open receivables of one age bucket: days past the due date (the issue date when undated). */
export type AgeBucket = ReportLine & { bucket: string }

export type MatchReport = {
  from: string | null
  to: string | null
  inflows: ReportLine
  /** Inflows whose allocations cover their whole amount. */
  matched: ReportLine
  /** Inflows with some allocation, not covering it all. */
  partiallyMatched: ReportLine
  unmatched: ReportLine
  /** matched / inflows by count, 0–1; null without inflows. */
  matchRate: number | null
  openReceivables: AgeBucket[]
}

export const AGE_BUCKETS = ['current', '1-30', '31-60', '61-90', '90+'] as const

function line(rows: ReadonlyArray<{ n: string; currency: string; amount: string }>): ReportLine {
  const amounts: Record<string, Decimal> = {}
  let count = 0
  for (const row of rows) {
    count += Number(row.n)
    amounts[row.currency] = (amounts[row.currency] ?? new Decimal(0)).plus(row.amount)
  }
  return {
    count,
    amounts: Object.fromEntries(
      Object.keys(amounts)
        .sort()
        .map((currency) => [currency, amounts[currency]!.toFixed()]),
    ),
  }
}

/**
 * Inflows with a posted date in [from, to] (posted and pending; reversed and cancelled ones left out, and so are
 * transfer legs, which are no customer payments), by how much of them is allocated; open receivables aged at
 * `asOf`.
 */
export async function matchReport(
  db: Kysely<Database>,
  options: { from?: string; to?: string; asOf: Date },
): Promise<MatchReport> {
  const from = options.from ?? null
  const to = options.to ?? null
  const { rows } = await sql<{ kind: string; currency: string; n: string; amount: string }>`
    with inflows as (
      select t.id, t.amount, coalesce(t.currency, '') as currency,
        coalesce((select sum(a.amount) from allocations a where a.transaction_id = t.id and a.reversed_at is null), 0)
          as allocated
      from transactions t
      where t.amount > 0
        and coalesce(t.status, 'unknown') not in ('reversed', 'cancelled')
        and (${from}::date is null or t.posted_date >= ${from}::date)
        and (${to}::date is null or t.posted_date <= ${to}::date)
        and not exists (select 1 from transfer_legs l where l.inflow_transaction_id = t.id)
    )
    select case when allocated >= amount then 'matched' when allocated > 0 then 'partial' else 'unmatched' end
      as kind, currency, count(*)::text as n, sum(amount)::text as amount
    from inflows group by 1, 2
  `.execute(db)
  const asOf = options.asOf.toISOString().slice(0, 10)
  const aged = await sql<{ bucket: string; currency: string; n: string; amount: string }>`
    select case
        when d.days <= 0 then 'current' when d.days <= 30 then '1-30' when d.days <= 60 then '31-60'
        when d.days <= 90 then '61-90' else '90+' end as bucket,
      d.currency, count(*)::text as n, sum(d.open)::text as amount
    from (
      select ${asOf}::date - coalesce(i.due_date, i.issue_date, ${asOf}::date) as days, i.currency,
        coalesce(s.amount_open, i.amount) as open
      from invoices i left join invoice_state s on s.invoice_id = i.id
      where i.voided_at is null and coalesce(s.amount_open, i.amount) > 0
    ) as d
    group by 1, 2
  `.execute(db)
  const matched = line(rows.filter((row) => row.kind === 'matched'))
  const inflows = line(rows)
  return {
    from,
    to,
    inflows,
    matched,
    partiallyMatched: line(rows.filter((row) => row.kind === 'partial')),
    unmatched: line(rows.filter((row) => row.kind === 'unmatched')),
    matchRate: inflows.count === 0 ? null : matched.count / inflows.count,
    openReceivables: AGE_BUCKETS.map((bucket) => ({
      bucket,
      ...line(aged.rows.filter((row) => row.bucket === bucket)),
    })),
  }
}
