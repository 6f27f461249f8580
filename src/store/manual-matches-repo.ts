import { type Kysely } from 'kysely'
import type { Database } from './database.js'

/** Who made a manual match: a user's (or the built-in admin's) name and role, as the audit log records them. */
export type ManualMatchActor = { actor: string; actorRole: string }

/** Sets a person's match of a transaction to an invoice, replacing the one held for the same pair. */
export async function setManualMatch(
  db: Kysely<Database>,
  match: {
    transactionId: string
    invoiceId: string
    amount: string
    /** A remittance advice's match: the rest of the invoice it writes off, and why. */
    writeOff?: { amount: string; reason: string }
  },
  at: Date,
  by: ManualMatchActor,
): Promise<void> {
  await removeManualMatch(db, match.transactionId, match.invoiceId, at)
  await db
    .insertInto('manual_matches')
    .values({
      transaction_id: match.transactionId,
      invoice_id: match.invoiceId,
      amount: match.amount,
      created_at: at,
      actor: by.actor,
      actor_role: by.actorRole,
      write_off: match.writeOff?.amount ?? null,
      write_off_reason: match.writeOff?.reason ?? null,
    })
    .execute()
}

export async function removeManualMatch(
  db: Kysely<Database>,
  transactionId: string,
  invoiceId: string,
  at: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('manual_matches')
    .set({ removed_at: at })
    .where('transaction_id', '=', transactionId)
    .where('invoice_id', '=', invoiceId)
    .where('removed_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function rejectSuggestion(
  db: Kysely<Database>,
  transactionId: string,
  invoiceIds: readonly string[],
  at: Date,
): Promise<void> {
  await db
    .insertInto('rejected_suggestions')
    .values({ transaction_id: transactionId, invoice_ids: [...invoiceIds].sort(), rejected_at: at })
    .onConflict((oc) => oc.columns(['transaction_id', 'invoice_ids']).doNothing())
    .execute()
}
