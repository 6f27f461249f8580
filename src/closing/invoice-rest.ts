import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import {
  allocatedWriteOffOf,
  enqueueMatches,
  getInvoice,
  pendingCreditNotesOf,
  pendingInvoiceWriteOffs,
  recomputeInvoiceWrittenOff,
  type Database,
} from '../store/index.js'
import { ClosingRequestError } from './closing-errors.js'

/**
 * What of an invoice a person may still write off or credit: its open amount as matching last saw it, less what
 * pending money holds and what other write-offs and credit notes waiting for approval would take. Refuses a void invoice or one with
 * nothing open. A person's write-off put in force since that run (the run comes after the answer) counts too:
 * the state's written-off amount less the allocations' is the person's part it saw.
 */
export async function openRestOf(
  trx: Kysely<Database>,
  invoiceId: string,
  exceptWriteOff: string | null,
  /** A waiting credit note not to count (the one being approved). */
  exceptCreditNote: string | null = null,
): Promise<{ rest: Decimal; currency: string }> {
  const invoice = await getInvoice(trx, invoiceId)
  if (!invoice)
    throw new ClosingRequestError('not_found', 'not_found', `No invoice ${JSON.stringify(invoiceId)}.`)
  if (invoice.voided_at !== null) {
    throw new ClosingRequestError(
      'conflict',
      'invoice_void',
      `Invoice ${invoice.number} is void: nothing to write off.`,
    )
  }
  const state = invoice.state
  const open = state
    ? new Decimal(state.amount_open)
        .minus(state.amount_pending)
        .plus(new Decimal(state.amount_written_off).minus(await allocatedWriteOffOf(trx, invoiceId)))
        .minus(invoice.written_off)
    : new Decimal(invoice.amount).minus(invoice.credited).minus(invoice.written_off)
  const rest = open
    .minus(await pendingInvoiceWriteOffs(trx, invoiceId, exceptWriteOff))
    .minus(await pendingCreditNotesOf(trx, invoiceId, exceptCreditNote))
  if (rest.lte(0)) {
    throw new ClosingRequestError(
      'conflict',
      'invoice_paid',
      `Invoice ${invoice.number} has nothing open to write off (status ${state?.status ?? 'open'}, ` +
        `${state?.amount_pending ?? '0'} held by pending payments, write-offs waiting for approval aside).`,
    )
  }
  return { rest, currency: invoice.currency }
}

/** Puts an invoice write-off in force or takes it out: the invoice's `written_off` and matching follow. */
export async function reapplyInvoiceWriteOffs(trx: Kysely<Database>, invoiceId: string): Promise<void> {
  await recomputeInvoiceWrittenOff(trx, invoiceId)
  await enqueueMatches(trx, 'invoice', [invoiceId])
}
