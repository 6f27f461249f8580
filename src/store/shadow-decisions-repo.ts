import type { Kysely, Selectable } from 'kysely'
import type { Database, ShadowDecisionDetail, ShadowDecisionsTable } from './database.js'

export type ShadowDecisionRow = Selectable<ShadowDecisionsTable>

export type ShadowDecisionWrite = {
  transactionId: string
  kind: 'allocate' | 'return'
  digest: string
  amount: string
  currency: string
  invoiceIds: string[]
  confidence: number
  decision: ShadowDecisionDetail
}

/** Records what the engine would have done; a decision already recorded for the transaction is kept as it was. */
export async function recordShadowDecisions(
  db: Kysely<Database>,
  decisions: readonly ShadowDecisionWrite[],
  at: Date,
): Promise<number> {
  if (decisions.length === 0) return 0
  const inserted = await db
    .insertInto('shadow_decisions')
    .values(
      decisions.map((decision) => ({
        transaction_id: decision.transactionId,
        kind: decision.kind,
        digest: decision.digest,
        amount: decision.amount,
        currency: decision.currency,
        invoice_ids: decision.invoiceIds,
        confidence: decision.confidence,
        decision: JSON.stringify(decision.decision),
        recorded_at: at,
      })),
    )
    .onConflict((conflict) => conflict.columns(['transaction_id', 'digest']).doNothing())
    .returning('id')
    .execute()
  return inserted.length
}

/** The decisions recorded in [from, to), oldest first. */
export async function shadowDecisionsRecorded(
  db: Kysely<Database>,
  period: { from: Date; to: Date },
): Promise<ShadowDecisionRow[]> {
  return db
    .selectFrom('shadow_decisions')
    .selectAll()
    .where('recorded_at', '>=', period.from)
    .where('recorded_at', '<', period.to)
    .orderBy('recorded_at')
    .orderBy('id')
    .execute()
}
