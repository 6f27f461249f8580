import { z } from 'zod'
import { importRefusalMessage } from '../../csv-rows/index.js'
import {
  camt054Advice,
  looksLikeXml,
  ClosingRequestError,
  parseRemittanceCsv,
  RemittanceFeeReason,
} from '../../closing/index.js'
import { getInvoices } from '../../store/index.js'
import type { Actor } from '../../users/index.js'
import { statusOf } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import type { RemittanceOutcome } from './remittance-page.js'

export const RemittanceForm = z.object({
  advice: z.string().trim().min(1, 'Paste the advice or choose its file.'),
  feeReason: RemittanceFeeReason.optional(),
  entry: z
    .string()
    .trim()
    .max(35)
    .transform((value) => value || undefined)
    .optional(),
})

/**
 * Imports a pasted or uploaded advice against a bank line through the closing service, as the API does: a
 * camt.054 notification when it is XML, else CSV. Refusals come back as the outcome to show, not as errors.
 */
export async function importAdviceForm(
  context: SidecarContext,
  transactionId: string,
  form: z.infer<typeof RemittanceForm>,
  actor: Actor,
): Promise<RemittanceOutcome> {
  try {
    let advice
    if (looksLikeXml(form.advice)) {
      advice = await camt054Advice(form.advice, { feeReason: form.feeReason, entry: form.entry })
    } else {
      const parsed = await parseRemittanceCsv(form.advice, form.feeReason)
      if (!parsed.ok) {
        return {
          ok: false,
          status: 400,
          message: `${importRefusalMessage(parsed)}.`,
          details: parsed.errors.flatMap((row) =>
            row.reasons.map((reason) => ({
              path: reason.field ? `line.${row.line}.${reason.field}` : `line.${row.line}`,
              message: reason.message,
            })),
          ),
        }
      }
      if (parsed.advice.lines.length === 0) {
        return {
          ok: false,
          status: 400,
          message: 'The advice has no invoiceNumber,amount rows.',
          details: [],
        }
      }
      advice = parsed.advice
    }
    const result = await context.closing.importRemittance(transactionId, advice, actor)
    const invoices = await getInvoices(
      context.store.db,
      result.matches.map((match) => match.invoiceId),
    )
    return {
      ok: true,
      result,
      numbers: new Map(invoices.map((invoice) => [invoice.id, invoice.number])),
      // An advice settles invoices in the payment's currency: theirs is the amounts'.
      currency: invoices[0]?.currency ?? null,
    }
  } catch (error) {
    if (!(error instanceof ClosingRequestError)) throw error
    return { ok: false, status: statusOf(error), message: error.message, details: error.details ?? [] }
  }
}
