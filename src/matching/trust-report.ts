import type { Kysely } from 'kysely'
import { z } from 'zod'
import { IsoDate } from '../api-client/index.js'
import type { Evidence } from '../matcher/index.js'
import {
  engineSettlementsFirstMade,
  loadTrustInputs,
  returnsOpened,
  shadowDecisionsRecorded,
  type AllocationRow,
  type Database,
  type ShadowDecisionRow,
} from '../store/index.js'
import { trustVerdict, undoneByPerson, type TrustOutcome, type TrustVerdict } from './trust-verdict.js'

/** The period asked: calendar days (UTC), both included. */
export const TrustReportRequest = z
  .object({ from: IsoDate, to: IsoDate })
  .refine((period) => period.from <= period.to, { message: 'must not be after to', path: ['from'] })
export type TrustReportRequest = z.output<typeof TrustReportRequest>

/** Lines listed one by one (disagreements, undone settlements); the counts always cover the whole period. */
export const TRUST_REPORT_LIST_LIMIT = 500

type Invoice = {
  invoiceId: string
  number: string | null
  amount: string
  writeOff: string
  writeOffReason: string | null
}

/** One bank line the engine would have settled (shadow mode), with how people decided it. */
export type TrustLine = {
  transactionId: string
  kind: 'allocate' | 'return'
  recordedAt: string
  amount: string
  currency: string
  /** The engine's evidence score in points (0–100), not a probability: docs/matching.md. */
  points: number
  engine: {
    invoices: Invoice[]
    returnOf: { inflowTransactionId: string; partial: boolean } | null
    reasons: string[]
    evidence: Evidence[]
  }
  person: TrustVerdict
}

/** An automatic settlement people undid (automation on). */
export type UndoneLine = {
  transactionId: string
  settledAt: string
  engine: { invoices: Invoice[]; points: number; reasons: string[]; evidence: Evidence[] }
  person: TrustVerdict
}

export type TrustReport = {
  from: string
  to: string
  shadow: {
    /** Bank lines the engine would have settled or returned by itself. */
    lines: number
    agreed: number
    disagreed: number
    open: number
    appliedLater: number
    /** agreed / (agreed + disagreed); null before anyone decided. */
    agreementRate: number | null
    disagreements: TrustLine[]
    /** Every line of the period with its verdict, oldest first (up to the list limit). */
    decisions: TrustLine[]
  }
  automatic: {
    /** Bank lines the engine settled by itself (first settled in the period). */
    lines: number
    undone: number
    /** Returns the engine made, and those people rejected (undid). */
    returns: number
    returnsUndone: number
    undoneLines: UndoneLine[]
  }
  truncated: boolean
}

const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000)

/** Per bank line, the last decision recorded in the period (a later run may have seen more invoices). */
function latestPerLine(rows: readonly ShadowDecisionRow[]): ShadowDecisionRow[] {
  const byLine = new Map<string, ShadowDecisionRow>()
  for (const row of rows) byLine.set(`${row.kind}:${row.transaction_id}`, row)
  return [...byLine.values()]
}

function trustLine(row: ShadowDecisionRow, numbers: Map<string, string>, person: TrustVerdict): TrustLine {
  const detail = row.decision
  const evidence = detail.return?.evidence ?? detail.allocations.flatMap((item) => item.evidence)
  return {
    transactionId: row.transaction_id,
    kind: row.kind,
    recordedAt: row.recorded_at.toISOString(),
    amount: row.amount,
    currency: row.currency,
    points: row.confidence,
    engine: {
      invoices: detail.allocations.map((item) => ({
        invoiceId: item.invoiceId,
        number: numbers.get(item.invoiceId) ?? null,
        amount: item.amount,
        writeOff: item.writeOff,
        writeOffReason: item.writeOffReason,
      })),
      returnOf: detail.return
        ? { inflowTransactionId: detail.return.inflowTransactionId, partial: detail.return.partial }
        : null,
      reasons: detail.reasons,
      evidence,
    },
    person,
  }
}

/** The engine's latest version of each allocation of a line, and when it first settled the line. */
function engineSettlements(rows: readonly AllocationRow[]) {
  const lines = new Map<string, { settledAt: Date; byInvoice: Map<string, AllocationRow> }>()
  for (const row of rows) {
    const line = lines.get(row.transaction_id) ?? { settledAt: row.created_at, byInvoice: new Map() }
    line.byInvoice.set(row.invoice_id, row)
    lines.set(row.transaction_id, line)
  }
  return lines
}

/**
 * The trust report (issue 25) of the days asked: what the engine would have settled in shadow mode and how people
 * decided each line, and what it settled with automation on and how much of it people undid. Verdicts are as of now.
 */
export async function trustReport(db: Kysely<Database>, request: TrustReportRequest): Promise<TrustReport> {
  const period = { from: new Date(`${request.from}T00:00:00Z`), to: dayAfter(request.to) }
  const [recorded, settled, returns] = await Promise.all([
    shadowDecisionsRecorded(db, period),
    engineSettlementsFirstMade(db, period),
    returnsOpened(db, period),
  ])
  const decisions = latestPerLine(recorded)
  const automatic = engineSettlements(settled)
  const inputs = await loadTrustInputs(
    db,
    [
      ...decisions.flatMap((row) =>
        row.decision.return
          ? [row.transaction_id, row.decision.return.inflowTransactionId]
          : [row.transaction_id],
      ),
      ...automatic.keys(),
    ],
    [...decisions.flatMap((row) => row.invoice_ids), ...settled.map((row) => row.invoice_id)],
  )
  const counts: Record<TrustOutcome, number> = { agreed: 0, disagreed: 0, open: 0, applied_later: 0 }
  const lines = decisions.map((row) => {
    const verdict = trustVerdict(row, inputs)
    counts[verdict.outcome]++
    return trustLine(row, inputs.invoiceNumbers, verdict)
  })
  const undoneLines: UndoneLine[] = []
  for (const [transactionId, line] of automatic) {
    const engine = [...line.byInvoice.values()]
    const verdict = undoneByPerson(transactionId, engine, line.settledAt, inputs)
    if (!verdict) continue
    const evidence = engine.flatMap((row) => row.evidence)
    undoneLines.push({
      transactionId,
      settledAt: line.settledAt.toISOString(),
      engine: {
        invoices: engine.map((row) => ({
          invoiceId: row.invoice_id,
          number: inputs.invoiceNumbers.get(row.invoice_id) ?? null,
          amount: row.amount,
          writeOff: row.write_off,
          writeOffReason: row.write_off_reason,
        })),
        points: Math.min(...engine.map((row) => row.confidence)),
        reasons: [...new Set(evidence.map((item) => item.text))],
        evidence,
      },
      person: verdict,
    })
  }
  const decided = counts.agreed + counts.disagreed
  const disagreements = lines.filter((line) => line.person.outcome === 'disagreed')
  return {
    from: request.from,
    to: request.to,
    shadow: {
      lines: lines.length,
      agreed: counts.agreed,
      disagreed: counts.disagreed,
      open: counts.open,
      appliedLater: counts.applied_later,
      agreementRate: decided === 0 ? null : counts.agreed / decided,
      disagreements: disagreements.slice(0, TRUST_REPORT_LIST_LIMIT),
      decisions: lines.slice(0, TRUST_REPORT_LIST_LIMIT),
    },
    automatic: {
      lines: automatic.size,
      undone: undoneLines.length,
      returns: returns.length,
      returnsUndone: returns.filter((row) => row.resolution === 'rejected').length,
      undoneLines: undoneLines.slice(0, TRUST_REPORT_LIST_LIMIT),
    },
    truncated: Math.max(lines.length, undoneLines.length) > TRUST_REPORT_LIST_LIMIT,
  }
}
