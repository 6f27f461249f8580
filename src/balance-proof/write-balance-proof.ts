import { once } from 'node:events'
import type { AccountProofDay } from './stream-balance-proof.js'

/** `problemDays` do not add up; `awaitingSyncDays` do not yet, the bank being ahead of the mirror (not problems). */
export type BalanceProofSummary = {
  accounts: number
  days: number
  problemDays: number
  awaitingSyncDays: number
  ok: boolean
}

const emptySummary = (): BalanceProofSummary => ({
  accounts: 0,
  days: 0,
  problemDays: 0,
  awaitingSyncDays: 0,
  ok: true,
})

function count(summary: BalanceProofSummary, day: AccountProofDay): void {
  summary.days++
  if (day.ok) return
  if (day.awaitingSync) summary.awaitingSyncDays++
  else summary.problemDays++
}

async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain')
}

/**
 * Streams the proof as one JSON document, `{ data: [day…], summary, meta? }`, a day at a time (the document
 * is never held whole).
 */
export async function writeBalanceProofJson(
  days: AsyncIterable<AccountProofDay>,
  out: NodeJS.WritableStream,
  meta?: Record<string, unknown>,
): Promise<BalanceProofSummary> {
  const summary = emptySummary()
  let account: string | null = null
  await write(out, '{"data":[')
  for await (const day of days) {
    if (day.accountId !== account) {
      account = day.accountId
      summary.accounts++
    }
    await write(out, `${summary.days === 0 ? '' : ','}${JSON.stringify(day)}`)
    count(summary, day)
  }
  summary.ok = summary.problemDays === 0
  await write(
    out,
    `],"summary":${JSON.stringify(summary)}${meta ? `,"meta":${JSON.stringify(meta)}` : ''}}\n`,
  )
  return summary
}

/** Streams the proof for people: one line per account, one per day that does not add up, then a summary. */
export async function writeBalanceProofText(
  days: AsyncIterable<AccountProofDay>,
  out: NodeJS.WritableStream,
): Promise<BalanceProofSummary> {
  const summary = emptySummary()
  let current: { day: AccountProofDay; days: number; problems: string[] } | null = null
  const flush = async () => {
    if (!current) return
    const { day, days: count, problems } = current
    await write(
      out,
      `account ${day.accountId} (${day.currency}, connection ${day.connectionId}): ${count} days, ` +
        `${problems.length === 0 ? 'all add up' : `${problems.length} do not add up`}\n${problems.join('')}`,
    )
  }
  for await (const day of days) {
    if (current?.day.accountId !== day.accountId) {
      await flush()
      current = { day, days: 0, problems: [] }
      summary.accounts++
    }
    current.days++
    count(summary, day)
    if (!day.ok) {
      current.problems.push(
        `  ${day.date}  mirrored posted ${day.mirroredPostedSum}  bank delta ${day.bankDelta ?? '-'}  ` +
          `ledger ${day.ledgerBalance ?? '-'} (previous ${day.previousLedgerBalance ?? '-'}): ${day.problem}` +
          `${day.awaitingSync ? ' (the bank is ahead of the mirror: proved after the next sync)' : ''}\n`,
      )
    }
  }
  await flush()
  summary.ok = summary.problemDays === 0
  await write(out, `balance proof: ${summary.accounts} accounts, ${summary.days} days, ${verdict(summary)}\n`)
  return summary
}

function verdict({ ok, problemDays, awaitingSyncDays }: BalanceProofSummary): string {
  if (awaitingSyncDays === 0) return ok ? 'every day adds up' : `${problemDays} days do not add up`
  const awaiting = `${awaitingSyncDays} await the next sync`
  return ok ? `every synced day adds up, ${awaiting}` : `${problemDays} days do not add up, ${awaiting}`
}
