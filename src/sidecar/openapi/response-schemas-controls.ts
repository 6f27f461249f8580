import { z } from 'zod'
import * as bank from '../../api-client/index.js'
import { AutoApplyModeSchema } from '../../matching/index.js'

/**
 * What the approval policy's and shadow mode's routes answer (src/sidecar/api/approvals.ts, matching-trust.ts),
 * for bankrec's OpenAPI document; loose like response-schemas.ts.
 */

const Iso = z.string().meta({ format: 'date-time' })
const Decimal = bank.DecimalString
const Status = z.enum(['pending_approval', 'active', 'declined'])

export const PendingApproval = z
  .looseObject({
    kind: z.enum(['disposition', 'credit_note', 'remittance']),
    id: z.string(),
    operation: z.string().meta({ description: "a disposition's kind, `credit_note` or `remittance`" }),
    amount: Decimal,
    currency: z.string(),
    account: z.string().nullable(),
    reason: z.string(),
    madeBy: z.string().nullable(),
    madeByRole: z.string().nullable(),
    createdAt: Iso,
    invoiceId: z.string().nullable(),
    transactionId: z.string().nullable(),
  })
  .meta({ id: 'PendingApproval' })

export const RemittanceImport = z
  .looseObject({
    id: z.string(),
    transactionId: z.string(),
    status: Status,
    matches: z.array(z.looseObject({ invoiceId: z.string(), amount: Decimal, writeOff: Decimal.nullable() })),
    writeOff: Decimal,
    writeOffInvoiceId: z.string().nullable(),
    currency: z.string(),
    feeReason: z.string(),
    fee: Decimal,
    difference: Decimal,
    source: z.string().nullable(),
    madeBy: z.string(),
    madeByRole: z.string(),
    createdAt: Iso,
    approvedBy: z.string().nullable(),
    declinedBy: z.string().nullable(),
    decidedAt: Iso.nullable(),
  })
  .meta({ id: 'RemittanceImport' })

export const AutoApplyState = z
  .looseObject({
    autoApply: AutoApplyModeSchema,
    source: z.enum(['stored', 'environment']),
    changedAt: Iso.nullable(),
    changedBy: z.string().nullable(),
  })
  .meta({ id: 'AutoApplyState' })

const Evidence = z.looseObject({ code: z.string(), points: z.number(), text: z.string() })
const TrustInvoice = z.looseObject({
  invoiceId: z.string(),
  number: z.string().nullable(),
  amount: Decimal,
  writeOff: Decimal,
  writeOffReason: z.string().nullable(),
})
const Verdict = z.looseObject({
  outcome: z.enum(['agreed', 'disagreed', 'open', 'applied_later']),
  decision: z.string(),
  now: z.array(
    z.looseObject({
      invoiceId: z.string(),
      amount: Decimal,
      madeBy: z.string(),
      actor: z.string().nullable(),
    }),
  ),
  actors: z.array(z.string()),
})
const TrustLine = z.looseObject({
  transactionId: z.string(),
  kind: z.enum(['allocate', 'return']),
  recordedAt: Iso,
  amount: Decimal,
  currency: z.string(),
  points: z.number().meta({ description: "the engine's evidence score (0–100), not a probability" }),
  engine: z.looseObject({
    invoices: z.array(TrustInvoice),
    returnOf: z.looseObject({ inflowTransactionId: z.string(), partial: z.boolean() }).nullable(),
    reasons: z.array(z.string()),
    evidence: z.array(Evidence),
  }),
  person: Verdict,
})
const UndoneLine = z.looseObject({
  transactionId: z.string(),
  settledAt: Iso,
  engine: z.looseObject({
    invoices: z.array(TrustInvoice),
    points: z.number(),
    reasons: z.array(z.string()),
    evidence: z.array(Evidence),
  }),
  person: Verdict,
})

export const TrustReport = z
  .looseObject({
    from: z.string(),
    to: z.string(),
    shadow: z.looseObject({
      lines: z.number().int(),
      agreed: z.number().int(),
      disagreed: z.number().int(),
      open: z.number().int(),
      appliedLater: z.number().int(),
      agreementRate: z.number().nullable(),
      disagreements: z.array(TrustLine),
      decisions: z.array(TrustLine),
    }),
    automatic: z.looseObject({
      lines: z.number().int(),
      undone: z.number().int(),
      returns: z.number().int(),
      returnsUndone: z.number().int(),
      undoneLines: z.array(UndoneLine),
    }),
    truncated: z.boolean(),
    mode: AutoApplyState,
  })
  .meta({ id: 'TrustReport' })
