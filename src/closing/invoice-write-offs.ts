import { Decimal } from 'decimal.js'
import { z } from 'zod'
import { insertDisposition, type DispositionRow } from '../store/index.js'
import { auditActor } from '../users/index.js'
import { WRITE_OFF_REASONS, writeOffAccountFor, type MatchConfig } from '../matcher/index.js'
import { askApprovalPolicy } from '../controls/index.js'
import { accountFromChart, auditDispositionMade, optionalText, type DispositionDeps } from './dispositions.js'
import { ClosingRequestError } from './closing-errors.js'
import { openRestOf, reapplyInvoiceWriteOffs } from './invoice-rest.js'
import { inLock } from './person-inputs.js'
import { RemittanceAmount } from './remittance-csv.js'

/** The reasons a person writes an invoice's rest off for (credit notes have their own API). */
export const INVOICE_WRITE_OFF_REASONS = WRITE_OFF_REASONS.filter((reason) => reason !== 'credit_note') as [
  string,
  ...string[],
]

/** A write-off of an invoice's open rest as a person asks for it (API body, CLI, dashboard form). */
export const InvoiceWriteOffRequestSchema = z.object({
  /** Default: the whole open rest. */
  amount: RemittanceAmount.refine(
    (value) => /^\+?\d{0,30}(\.\d{0,18})?$/.test(value),
    'must have at most 30 digits before the point and 18 after',
  ).optional(),
  reason: z.enum(INVOICE_WRITE_OFF_REASONS),
  /** Default: the write-off account configured for the reason (MATCH_WRITE_OFF_ACCOUNT(S)). */
  account: optionalText(100),
  note: optionalText(500),
})

export type InvoiceWriteOffRequest = z.infer<typeof InvoiceWriteOffRequestSchema>

export type InvoiceWriteOffDeps = DispositionDeps & { config: MatchConfig }

/**
 * A person writes off (part of) an invoice's open rest (issue 16): a payment short by a little outside the
 * tolerance, an old dispute, a bad debt. A disposition of the invoice, audited with the actor; when the approval
 * policy says so (what is already written off or credited alone on the invoice or by the maker counts) it waits for a second person and the invoice stays open until then. In force, matching counts it as
 * written off: the invoice is `paid` once nothing is left open, and no run allocates to what it closed.
 */
export async function writeOffInvoice(
  deps: InvoiceWriteOffDeps,
  invoiceId: string,
  request: InvoiceWriteOffRequest,
): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const { rest, currency } = await openRestOf(trx, invoiceId, null)
    const amount = request.amount === undefined ? rest : new Decimal(request.amount)
    if (amount.gt(rest)) {
      throw new ClosingRequestError(
        'conflict',
        'exceeds_open',
        `amount ${amount.toFixed()} is more than the ${rest.toFixed()} ${currency} invoice ${invoiceId} has open.`,
      )
    }
    const account = accountFromChart(
      deps.controls.chart,
      'write_off',
      request.account ?? writeOffAccountFor(deps.config, request.reason),
    )
    const decision = await askApprovalPolicy(trx, deps.controls.policy, {
      amount,
      currency,
      invoiceIds: [invoiceId],
      transactionId: null,
      maker: deps.actor.name,
      now: deps.now,
    })
    const waits = decision.needsSecondPerson
    const by = auditActor(deps.actor)
    const row = await insertDisposition(trx, {
      exception_key: null,
      exception_type: null,
      transaction_id: null,
      invoice_id: invoiceId,
      kind: 'write_off',
      amount: amount.toFixed(),
      currency,
      account,
      customer_id: null,
      reason: request.reason,
      note: request.note ?? null,
      status: waits ? 'pending_approval' : 'active',
      made_by: by.actor,
      made_by_role: by.actorRole,
      created_at: deps.now,
    })
    if (!waits) await reapplyInvoiceWriteOffs(trx, invoiceId)
    await auditDispositionMade(trx, deps, row, decision)
    return row
  })
}
