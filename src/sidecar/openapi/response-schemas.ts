import { z } from 'zod'
import * as bank from '../../api-client/index.js'
import { ROLES } from '../../users/index.js'

/**
 * What bankrec's /api answers, as zod schemas for its OpenAPI document. The route files build these objects in
 * presenters; the schemas describe them, and test/sidecar/openapi-responses.test.ts holds them to the routes'
 * real answers. Objects are loose (a new field is not a breaking change), their listed fields required.
 */

const Iso = z.string().meta({ format: 'date-time' })
const Decimal = bank.DecimalString
const Meta = z.looseObject({ requestId: z.string() })

export const ApiError = z
  .looseObject({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
      requestId: z.string(),
      details: z.array(z.looseObject({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'ApiError' })

/** A keyset page: `data`, then `pagination` (and `meta` on most lists). */
export function page<T extends z.ZodType>(item: T) {
  return z.looseObject({ data: z.array(item), pagination: bank.Pagination, meta: Meta.optional() })
}

const Evidence = z.looseObject({ text: z.string() })

export const Allocation = z
  .looseObject({
    id: z.string(),
    transactionId: z.string(),
    invoiceId: z.string(),
    amount: Decimal,
    writeOff: Decimal,
    writeOffReason: z.string().nullable(),
    writeOffAccount: z.string().nullable(),
    settled: z.boolean(),
    rule: z.string(),
    field: z.string().nullable(),
    matchedReference: z.string().nullable(),
    via: z.string().nullable(),
    confidence: z.number().nullable(),
    madeBy: z.string(),
    actor: z.string().nullable(),
    reasons: z.array(z.string()),
    evidence: z.array(Evidence),
    createdAt: Iso,
    reversedAt: Iso.nullable(),
    reversalReason: z.string().nullable(),
  })
  .meta({ id: 'Allocation' })

export const MatchException = z
  .looseObject({
    key: z.string(),
    type: z.string(),
    transactionId: z.string().nullable(),
    transferId: z.string().nullable(),
    invoiceIds: z.array(z.string()),
    amount: Decimal.nullable(),
    confidence: z.number().nullable(),
    settled: z.boolean().nullable(),
    reasons: z.array(z.string()),
    evidence: z.array(Evidence),
    openedAt: Iso,
    resolvedAt: Iso.nullable(),
    resolution: z.string().nullable(),
  })
  .meta({ id: 'MatchException' })

export const Disposition = z
  .looseObject({
    id: z.string(),
    exceptionKey: z.string().nullable(),
    exceptionType: z.string().nullable(),
    transactionId: z.string().nullable(),
    kind: z.string(),
    amount: Decimal,
    currency: z.string(),
    account: z.string(),
    customerId: z.string().nullable(),
    reason: z.string(),
    invoiceId: z.string().nullable(),
    note: z.string().nullable(),
    status: z.string(),
    madeBy: z.string(),
    createdAt: Iso,
    decidedBy: z.string().nullable(),
    decidedAt: Iso.nullable(),
    undoneBy: z.string().nullable(),
    undoneAt: Iso.nullable(),
  })
  .meta({ id: 'Disposition' })

export const Invoice = z
  .looseObject({
    id: z.string(),
    number: z.string(),
    amount: Decimal,
    currency: z.string(),
    customerName: z.string().nullable(),
    customerAliases: z.array(z.string()),
    issueDate: z.string().nullable(),
    dueDate: z.string().nullable(),
    customerId: z.string().nullable(),
    paymentReference: z.string().nullable(),
    status: z.enum(['open', 'partially_paid', 'paid', 'overpaid', 'void']),
    amountPaid: Decimal,
    amountPending: Decimal,
    amountOpen: Decimal,
    amountOverpaid: Decimal,
    amountWrittenOff: Decimal,
    amountCredited: Decimal,
    version: z.number().int(),
    voidedAt: Iso.nullable(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .meta({ id: 'Invoice' })

export const InvoiceWithWriteOffs = Invoice.extend({ writeOffs: z.array(Disposition) })

export const Customer = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    aliases: z.array(z.string()),
    bankAccounts: z.array(z.string()),
    learned: z.array(
      z.looseObject({
        id: z.string(),
        kind: z.enum(['account', 'name']),
        value: z.string(),
        transactionId: z.string().nullable(),
        invoiceId: z.string().nullable(),
        createdAt: Iso,
      }),
    ),
    version: z.number().int(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .meta({ id: 'Customer' })

export const LearnedLink = Customer.shape.learned.element

export const CreditNote = z
  .looseObject({
    id: z.string(),
    number: z.string(),
    amount: Decimal,
    currency: z.string(),
    customerId: z.string().nullable(),
    invoiceId: z.string(),
    account: z.string().nullable(),
    status: z.enum(['pending_approval', 'active', 'declined']),
    madeBy: z.string().nullable(),
    approvedBy: z.string().nullable(),
    declinedBy: z.string().nullable(),
    voidedBy: z.string().nullable(),
    version: z.number().int(),
    voidedAt: Iso.nullable(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .meta({ id: 'CreditNote' })

/** What an all-or-nothing CSV import did. */
export const ImportResult = z.looseObject({
  rows: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
})

export const Incident = z
  .looseObject({
    id: z.string(),
    kind: z.string(),
    startedAt: z.string(),
    lastAlertAt: z.string().nullable(),
    remindersSent: z.number().int(),
  })
  .nullable()

export const MirroredConnection = z.looseObject({
  id: z.string(),
  entityId: z.string().nullable(),
  kind: z.string(),
  status: z.string(),
  institutionId: z.string().nullable(),
  institutionName: z.string().nullable(),
  lastSyncedAt: Iso.nullable(),
  observedAt: Iso,
  openIncident: Incident,
})

/** A connection as the bank answered, with the status connection health settled on and its open incident. */
export const ConnectionAnswer = z.looseObject({ id: z.string(), status: z.string(), openIncident: Incident })

export const Transfer = z
  .looseObject({
    id: z.string(),
    idempotencyKey: z.string(),
    bankTransferId: z.string().nullable(),
    status: z.string(),
    amount: z.looseObject({ value: Decimal, currency: z.string() }),
    sourceAccountId: z.string(),
    destinationAccountId: z.string(),
    attempts: z.array(z.looseObject({ kind: z.string(), state: z.string(), createdAt: Iso })),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .meta({ id: 'TransferRecord' })

export const AlertNotice = z.looseObject({
  id: z.string(),
  type: z.string(),
  kind: z.string(),
  severity: z.string(),
  title: z.string(),
  text: z.string(),
  occurredAt: z.string(),
  deliveries: z.array(z.looseObject({})),
})

export const AuditEntry = z.looseObject({
  seq: z.string(),
  at: Iso,
  actor: z.string(),
  actorRole: z.string().nullable(),
  action: z.string(),
  entity: z.string(),
  entityId: z.string().nullable(),
  payload: z.unknown(),
  hash: z.string(),
})

export const User = z.looseObject({
  id: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  createdAt: Iso,
  removedAt: Iso.nullable(),
})

export const Me = z.looseObject({
  name: z.string(),
  role: z.enum(ROLES),
  kind: z.string(),
  via: z.string(),
})

const ReportLine = z.looseObject({ count: z.number().int(), amounts: z.record(z.string(), Decimal) })

export const MatchReport = z.looseObject({
  from: z.string().nullable(),
  to: z.string().nullable(),
  inflows: ReportLine,
  matched: ReportLine,
  partiallyMatched: ReportLine,
  unmatched: ReportLine,
  matchRate: z.number().nullable(),
  openReceivables: z.array(ReportLine.extend({ bucket: z.string() })),
})

export const MatchConfig = z.looseObject({
  autoApplyThreshold: z.number(),
  feeTolerance: z.looseObject({}),
  writeOffAccount: z.string(),
  writeOffAccounts: z.record(z.string(), z.string()),
  maxSuggestionSetSize: z.number().int(),
  invoiceDateGraceDays: z.number().int(),
  returnHorizonDays: z.number().int(),
  autoApply: z.enum(['off', 'shadow', 'on']),
  autoApplySource: z.enum(['stored', 'environment']),
  approvalThreshold: z.looseObject({}).nullable(),
})

export const DryRunReport = z.looseObject({
  payments: z.number().int(),
  changes: z.record(z.string(), z.number().int()),
  results: z.array(z.looseObject({ transactionId: z.string(), amount: Decimal, changes: z.boolean() })),
})

export const RemittanceResult = z.looseObject({
  transactionId: z.string(),
  importId: z.string(),
  status: z.enum(['pending_approval', 'active', 'declined']),
  matches: z.array(z.looseObject({ invoiceId: z.string(), amount: Decimal, writeOff: Decimal.nullable() })),
  writeOff: Decimal,
  difference: Decimal,
})

export const Overview = z.looseObject({
  data: z.looseObject({
    mode: z.enum(['sandbox', 'bank']),
    queues: z.array(z.looseObject({ name: z.string() })),
    syncLag: z.array(z.looseObject({ connectionId: z.string(), lastSuccessAt: Iso.nullable() })),
    deliveries: z.array(z.looseObject({ outcome: z.string(), reason: z.string(), count: z.number() })),
    recentEvents: z.array(z.looseObject({ eventId: z.string(), type: z.string(), processedAt: Iso })),
  }),
})

export const BalanceProof = z.looseObject({
  data: z.array(z.looseObject({})),
  summary: z.looseObject({}),
  meta: z.looseObject({}).optional(),
})

/** The journal as JSON: its entries with balanced lines, and debits and credits per currency. */
export const Journal = z.looseObject({
  entries: z.array(
    z.looseObject({
      id: z.string(),
      at: Iso,
      kind: z.string(),
      currency: z.string(),
      lines: z.array(z.looseObject({ account: z.string(), debit: Decimal, credit: Decimal })),
    }),
  ),
  totals: z.record(z.string(), z.looseObject({ debit: Decimal, credit: Decimal })),
})

export const Payment = z
  .looseObject({
    id: z.string(),
    accountId: z.string(),
    postedDate: z.string().nullable(),
    amount: Decimal,
    currency: z.string(),
    status: z.string(),
    payer: z.string().nullable(),
    paymentReference: z.string().nullable(),
    description: z.string().nullable(),
    allocated: Decimal,
    openException: z.string().nullable(),
  })
  .meta({ id: 'Payment' })

export const OpenInvoice = z.looseObject({
  id: z.string(),
  number: z.string(),
  customerName: z.string().nullable(),
  amount: Decimal,
  amountOpen: Decimal,
  currency: z.string(),
  dueDate: z.string().nullable(),
})
