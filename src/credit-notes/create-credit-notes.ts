import { invoiceChangeHooks, InvoiceError, type InvoicesContext } from '../invoices/index.js'
import { getCreditNote, listCreditNotes, upsertCreditNote, voidCreditNote } from '../store/index.js'
import { CreditNoteSchema, creditNoteProblems } from './credit-note-input.js'
import { creditNoteView, type CreditNote } from './credit-note-view.js'

export type CreditNoteUpsertResult = { creditNote: CreditNote; created: boolean; changed: boolean }

export type CreditNotes = {
  /** Inserts or updates a credit note; its invoice's open amount is netted and matching runs again. */
  upsert(value: unknown): Promise<CreditNoteUpsertResult>
  get(id: string): Promise<CreditNote | undefined>
  /** Up to 500 credit notes in id order after `after`, optionally of one invoice. */
  list(params?: { invoiceId?: string; after?: string; limit?: number }): Promise<CreditNote[]>
  /** Voids a credit note (the invoice is owed in full again); undefined when there is none with this id. */
  void(id: string): Promise<CreditNote | undefined>
}

function validationError(details: Array<{ path: string; message: string }>): InvoiceError {
  const message = details.map((detail) => `${detail.path} ${detail.message}`).join('; ')
  return new InvoiceError('invalid', 'validation_error', message, details)
}

/**
 * Credit notes netted against their invoice (docs/closing.md): one of the invoice's customer and currency, never
 * more than the invoice; the first payment of the invoice books it as written off with reason `credit_note`.
 */
export function createCreditNotes(context: InvoicesContext): CreditNotes {
  const { db } = context.store
  const { afterWrite, notify } = invoiceChangeHooks(context)

  return {
    async upsert(value) {
      const parsed = CreditNoteSchema.safeParse(value)
      if (!parsed.success) {
        throw validationError(
          parsed.error.issues.map((issue) => ({
            path: issue.path.map(String).join('.'),
            message:
              issue.code === 'unrecognized_keys'
                ? `${issue.message}: not a credit note field`
                : issue.message,
          })),
        )
      }
      const note = parsed.data
      const outcome = await upsertCreditNote(
        db,
        note,
        context.clock.now(),
        (invoice, othersTotal) =>
          creditNoteProblems(
            note,
            invoice && {
              amount: invoice.amount,
              currency: invoice.currency,
              customerId: invoice.customer_id,
              void: invoice.voided_at !== null,
            },
            othersTotal,
          ),
        { afterWrite },
      )
      if (!outcome.ok) {
        const message = outcome.problems.map((problem) => `${problem.path} ${problem.message}`).join('; ')
        throw new InvoiceError('unprocessable', 'credit_note_rejected', message, outcome.problems)
      }
      if (outcome.changed) await notify([note.invoiceId])
      return { creditNote: creditNoteView(outcome.row), created: outcome.created, changed: outcome.changed }
    },

    async get(id) {
      const row = await getCreditNote(db, id)
      return row && creditNoteView(row)
    },

    async list(params = {}) {
      const limit = Math.min(Math.max(Math.trunc(params.limit ?? 100), 1), 500)
      const rows = await listCreditNotes(db, { invoiceId: params.invoiceId, afterId: params.after, limit })
      return rows.map(creditNoteView)
    },

    async void(id) {
      const row = await voidCreditNote(db, id, context.clock.now(), { afterWrite })
      if (row) await notify([row.invoice_id])
      return row && creditNoteView(row)
    },
  }
}
