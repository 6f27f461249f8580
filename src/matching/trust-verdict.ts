import { Decimal } from 'decimal.js'
import type { ShadowDecisionRow, TrustInputs } from '../store/index.js'

/**
 * How people decided a bank line the engine would have settled by itself: `agreed` (they matched the same
 * invoices with the same amounts, or took the same money back), `disagreed` (something else: other invoices or
 * amounts, a rejection, a disposition), `open` (nobody decided yet), `applied_later` (automation was switched on
 * and the engine applied it itself: no person's verdict).
 */
export type TrustOutcome = 'agreed' | 'disagreed' | 'open' | 'applied_later'

export type TrustVerdict = {
  outcome: TrustOutcome
  /** In words: what the person did. */
  decision: string
  /** What the line pays now, invoice by invoice (a person's and the engine's allocations in force). */
  now: Array<{ invoiceId: string; amount: string; madeBy: string; actor: string | null }>
  /** Who decided: the people whose matches or dispositions these are. */
  actors: string[]
}

type Amounts = Map<string, Decimal>

function sumByInvoice(rows: ReadonlyArray<{ invoice_id: string; amount: string }>): Amounts {
  const sums: Amounts = new Map()
  for (const row of rows)
    sums.set(row.invoice_id, (sums.get(row.invoice_id) ?? new Decimal(0)).plus(row.amount))
  return sums
}

/** Same invoices, each with exactly the same amount (zero amounts left out). */
export function sameAmounts(a: Amounts, b: Amounts): boolean {
  const nonZero = (m: Amounts) => [...m].filter(([, amount]) => !amount.isZero())
  const left = nonZero(a)
  return left.length === nonZero(b).length && left.every(([id, amount]) => b.get(id)?.equals(amount) === true)
}

function allocationsNow(inputs: TrustInputs, transactionId: string) {
  return inputs.allocations.filter((row) => row.transaction_id === transactionId && row.rule !== 'credit')
}

function present(rows: ReturnType<typeof allocationsNow>): TrustVerdict['now'] {
  return rows.map((row) => ({
    invoiceId: row.invoice_id,
    amount: row.amount,
    madeBy: row.made_by,
    actor: row.actor,
  }))
}

/** A person's inputs on a line since `since`: their matches (unmatches included) and dispositions in force. */
function personInputs(inputs: TrustInputs, transactionIds: readonly string[], since: Date) {
  const matches = inputs.manualMatches.filter(
    (row) => transactionIds.includes(row.transaction_id) && row.created_at >= since,
  )
  const dispositions = inputs.dispositions.filter(
    (row) => row.transaction_id !== null && transactionIds.includes(row.transaction_id),
  )
  const actors = [
    ...new Set([...matches.flatMap((row) => row.actor ?? []), ...dispositions.map((row) => row.made_by)]),
  ]
  return { matches, dispositions, actors }
}

/** The verdict on a would-be settlement: a person's matches against the engine's allocations. */
function settlementVerdict(decision: ShadowDecisionRow, inputs: TrustInputs): TrustVerdict {
  const id = decision.transaction_id
  const now = allocationsNow(inputs, id)
  const person = personInputs(inputs, [id], decision.recorded_at)
  const base = { now: present(now), actors: person.actors }
  const byPerson = now.filter((row) => row.made_by === 'person')
  if (person.matches.length > 0 || byPerson.length > 0) {
    const engine = sumByInvoice(
      decision.decision.allocations.map((item) => ({ invoice_id: item.invoiceId, amount: item.amount })),
    )
    const same = sameAmounts(sumByInvoice(byPerson), engine)
    return same
      ? { ...base, outcome: 'agreed', decision: 'matched the same invoices and amounts' }
      : { ...base, outcome: 'disagreed', decision: 'matched other invoices or amounts' }
  }
  const rejected = inputs.rejections.some((row) => row.transaction_id === id)
  if (rejected) return { ...base, outcome: 'disagreed', decision: 'rejected the suggestion' }
  const [disposition] = person.dispositions
  if (disposition)
    return {
      ...base,
      outcome: 'disagreed',
      decision: `disposed of it (${disposition.kind}): ${disposition.reason}`,
    }
  if (now.some((row) => row.made_by === 'engine'))
    return {
      ...base,
      outcome: 'applied_later',
      decision: 'applied by the engine after automation was switched on',
    }
  return { ...base, outcome: 'open', decision: 'nobody decided yet' }
}

/** The verdict on a would-be return: did people take the money off the returned invoices? */
function returnVerdict(decision: ShadowDecisionRow, inputs: TrustInputs): TrustVerdict {
  const returned = decision.decision.return
  const outflow = decision.transaction_id
  const inflow = returned?.inflowTransactionId ?? ''
  const now = allocationsNow(inputs, inflow)
  const person = personInputs(inputs, [inflow, outflow], decision.recorded_at)
  const base = { now: present(now), actors: person.actors }
  const applied = inputs.returns.some(
    (row) => row.key === `payment_returned:${outflow}:${inflow}` && row.resolved_at === null,
  )
  if (applied)
    return {
      ...base,
      outcome: 'applied_later',
      decision: 'returned by the engine after automation was switched on',
    }
  if (person.matches.length === 0 && person.dispositions.length === 0)
    return { ...base, outcome: 'open', decision: 'nobody decided yet' }
  const paid = now
    .filter((row) => decision.invoice_ids.includes(row.invoice_id))
    .reduce((sum, row) => sum.plus(row.amount), new Decimal(0))
  return paid.lte(returned?.inflowKeeps ?? '0')
    ? { ...base, outcome: 'agreed', decision: 'took the returned money off the invoices' }
    : { ...base, outcome: 'disagreed', decision: 'kept the payment on the invoices' }
}

export function trustVerdict(decision: ShadowDecisionRow, inputs: TrustInputs): TrustVerdict {
  return decision.kind === 'return' ? returnVerdict(decision, inputs) : settlementVerdict(decision, inputs)
}

/**
 * Whether people undid an automatic settlement: a person's match on the line after the engine settled it, and what
 * the line pays now differs from what the engine applied (an unmatch, a remove and redo, another invoice).
 */
export function undoneByPerson(
  transactionId: string,
  engine: ReadonlyArray<{ invoice_id: string; amount: string }>,
  settledAt: Date,
  inputs: TrustInputs,
): TrustVerdict | null {
  const person = personInputs(inputs, [transactionId], settledAt)
  if (person.matches.length === 0) return null
  const now = allocationsNow(inputs, transactionId)
  if (sameAmounts(sumByInvoice(now), sumByInvoice(engine))) return null
  return {
    outcome: 'disagreed',
    decision: now.length === 0 ? 'unmatched it' : 'matched other invoices or amounts',
    now: present(now),
    actors: person.actors,
  }
}
