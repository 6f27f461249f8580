import { Decimal } from 'decimal.js'
import type { Allocation, Evidence } from '../matcher/index.js'
import { canonicalJson } from '../canonical-json/index.js'

/** An active allocation as the store holds it. */
export type StoredAllocation = {
  id: string
  transactionId: string
  invoiceId: string
  amount: string
  writeOff: string
  writeOffReason: string | null
  writeOffAccount: string | null
  settled: boolean
  rule: string
  field: string | null
  reference: string | null
  via: string | null
  confidence: number
  madeBy: 'engine' | 'person'
  actor: string | null
  evidence: Evidence[]
}

/** A proposed allocation with the user whose manual match it is (none for the engine's). */
export type ProducedAllocation = Allocation & { actor: string | null }

export type AllocationDiff = {
  /** Produced and not held (or held with other values): to insert. */
  insert: ProducedAllocation[]
  /** Held and no longer produced as held: to reverse, with the reason. */
  reverse: Array<{ allocation: StoredAllocation; reason: string }>
  unchanged: StoredAllocation[]
}

export function allocationIdentity(item: {
  transactionId: string
  invoiceId: string
  madeBy: string
}): string {
  return `${item.transactionId}|${item.invoiceId}|${item.madeBy}`
}

function same(stored: StoredAllocation, produced: ProducedAllocation): boolean {
  return (
    new Decimal(stored.amount).equals(produced.amount) &&
    new Decimal(stored.writeOff).equals(produced.writeOff) &&
    stored.writeOffReason === produced.writeOffReason &&
    stored.writeOffAccount === produced.writeOffAccount &&
    stored.settled === produced.settled &&
    stored.rule === produced.rule &&
    stored.field === produced.field &&
    stored.reference === produced.reference &&
    stored.via === produced.via &&
    stored.confidence === produced.confidence &&
    stored.actor === produced.actor &&
    // jsonb keeps keys in its own order: compare the evidence as canonical JSON.
    canonicalJson(stored.evidence) === canonicalJson(produced.evidence)
  )
}

/**
 * What turns the held allocations of a closed set into the produced ones. An allocation whose values changed
 * (pending money posted, an amount modified, another person's match) is reversed and made anew, so history keeps
 * both. `reasonFor`
 * says why a held allocation that is not produced any more went away.
 */
export function diffAllocations(
  stored: readonly StoredAllocation[],
  produced: readonly ProducedAllocation[],
  reasonFor: (allocation: StoredAllocation) => string,
): AllocationDiff {
  const held = new Map(stored.map((allocation) => [allocationIdentity(allocation), allocation]))
  const diff: AllocationDiff = { insert: [], reverse: [], unchanged: [] }
  const seen = new Set<string>()
  for (const allocation of produced) {
    const identity = allocationIdentity(allocation)
    seen.add(identity)
    const current = held.get(identity)
    if (current && same(current, allocation)) {
      diff.unchanged.push(current)
      continue
    }
    if (current) diff.reverse.push({ allocation: current, reason: 'superseded' })
    diff.insert.push(allocation)
  }
  for (const [identity, allocation] of held) {
    if (!seen.has(identity)) diff.reverse.push({ allocation, reason: reasonFor(allocation) })
  }
  return diff
}
