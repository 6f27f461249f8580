import type { Kysely } from 'kysely'
import { matchReport } from '../../closing/index.js'
import type { Database } from '../../store/index.js'
import type { DailyAmounts } from './daily-chart.js'

export type DailySeries = {
  /** The currency charted; null when no inflow falls in the window. */
  currency: string | null
  /** Every currency with an inflow in the window, so the page can offer the others. */
  currencies: string[]
  days: DailyAmounts[]
}

const DAY_MS = 86_400_000

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/**
 * The last `length` days of inflows by how much is matched, each day from the same report as GET /api/report, so
 * the chart and the report never disagree. The window ends today or on the latest posted inflow, whichever is
 * later (the sandbox's clock may run ahead of this process's). Without a currency asked for, the one with inflows
 * on the most days is charted.
 */
export async function loadDailySeries(
  db: Kysely<Database>,
  options: { now: Date; length: number; currency?: string },
): Promise<DailySeries> {
  const latest = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.max('posted_date').as('latest'))
    .where('amount', '>', '0')
    .executeTakeFirst()
  const today = isoDay(options.now.getTime())
  const end = latest?.latest && latest.latest > today ? latest.latest : today
  const endMs = Date.parse(`${end}T00:00:00Z`)
  const dayList = Array.from({ length: options.length }, (_, i) =>
    isoDay(endMs - (options.length - 1 - i) * DAY_MS),
  )
  const reports = await Promise.all(
    dayList.map((day) => matchReport(db, { from: day, to: day, asOf: options.now })),
  )
  const daysWith = new Map<string, number>()
  for (const report of reports) {
    for (const currency of Object.keys(report.inflows.amounts)) {
      daysWith.set(currency, (daysWith.get(currency) ?? 0) + 1)
    }
  }
  const currencies = [...daysWith.keys()].sort()
  const chosen =
    options.currency && daysWith.has(options.currency)
      ? options.currency
      : ([...daysWith.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null)
  return {
    currency: chosen,
    currencies,
    days: dayList.map((day, i) => {
      const report = reports[i]!
      const of = (line: { amounts: Record<string, string> }) => (chosen && line.amounts[chosen]) || '0'
      return {
        day,
        matched: of(report.matched),
        partial: of(report.partiallyMatched),
        unmatched: of(report.unmatched),
      }
    }),
  }
}
