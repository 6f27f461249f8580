import type { Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { normalizeName } from '../matcher/index.js'
import {
  getInvoice,
  getInvoices,
  listInvoices,
  upsertInvoices,
  voidInvoice,
  type Database,
  type InvoicesWrittenHook,
  type InvoiceWithState,
} from '../store/index.js'
import { decodeInvoiceCursor, encodeInvoiceCursor, invoiceListFingerprint } from './invoice-cursor.js'
import { InvoiceError, type InvoiceErrorDetail } from './invoice-error.js'
import { withKeys } from './invoice-keys.js'
import { validateInvoice, type InvoiceInput } from './invoice-input.js'
import { invoiceView, type Invoice } from './invoice-view.js'
import {
  parseInvoiceCsv,
  type InvoiceCsvInput,
  type InvoiceCsvResult,
  type ParseInvoiceCsvOptions,
} from './parse-invoice-csv.js'

/**
 * Told about every committed change of invoices (upsert, import, void), so matching runs again: payments may
 * arrive before their invoice. Both methods are optional.
 */
export type InvoiceChangeListener = {
  /** Runs inside the writing transaction with the ids written: queue them there and no change is ever lost. */
  invoicesWritten?(trx: Transaction<Database>, ids: string[]): Promise<void>
  /** Runs after the commit with the ids written. A failure is logged; the write stands. */
  invoicesChanged?(ids: readonly string[]): Promise<void> | void
}

/** What the invoice library needs; a `SidecarContext` is one. */
export type InvoicesContext = {
  store: { db: Kysely<Database> }
  clock: Clock
  logger?: Logger
  matching?: InvoiceChangeListener
}

export type InvoiceUpsertResult = { invoice: Invoice; created: boolean; changed: boolean }

export type InvoiceImportResult =
  | { ok: true; rows: number; created: number; updated: number; unchanged: number }
  | Extract<InvoiceCsvResult, { ok: false }>

export type InvoiceImportOptions = ParseInvoiceCsvOptions & {
  /** Called while the rows are written, with the count written so far and the total. */
  onWritten?: (written: number, total: number) => void
}

export type InvoiceListParams = {
  status?: string
  customer?: string
  cursor?: string
  limit?: number | string
}

export type InvoiceList = {
  data: Invoice[]
  pagination: { hasMore: boolean; nextCursor: string | null }
}

export type Invoices = {
  /** Inserts or updates one invoice, or many in one transaction (all or none). */
  upsert(invoices: readonly unknown[]): Promise<InvoiceUpsertResult[]>
  upsert(invoice: unknown): Promise<InvoiceUpsertResult>
  /** Imports a CSV file: every row valid and all written, or nothing written and the first bad rows reported. */
  import(csv: InvoiceCsvInput, options?: InvoiceImportOptions): Promise<InvoiceImportResult>
  get(id: string): Promise<Invoice | undefined>
  list(params?: InvoiceListParams): Promise<InvoiceList>
  /** Voids an invoice (its row is kept); undefined when there is none with this id. */
  void(id: string): Promise<Invoice | undefined>
}

export const INVOICE_STATUSES = ['open', 'partially_paid', 'paid', 'overpaid', 'void'] as const
export const DEFAULT_LIST_LIMIT = 100
export const MAX_LIST_LIMIT = 500
const STATE_READ_CHUNK = 1000

export const InvoiceListQuery = z.object({
  status: z.enum(INVOICE_STATUSES, { error: `must be one of ${INVOICE_STATUSES.join(', ')}` }).optional(),
  customer: z.string().trim().min(1, 'must not be blank').optional(),
  cursor: z.string().min(1, 'must not be blank').optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 500' })
    .int('must be a whole number from 1 to 500')
    .min(1, 'must be a whole number from 1 to 500')
    .max(MAX_LIST_LIMIT, 'must be a whole number from 1 to 500')
    .default(DEFAULT_LIST_LIMIT),
})

function validationError(details: InvoiceErrorDetail[]): InvoiceError {
  return new InvoiceError(
    'invalid',
    'validation_error',
    details.map((detail) => `${detail.path} ${detail.message}`.trim()).join('; '),
    details,
  )
}

/** Validates invoices given together: every problem of every invoice, and no id twice. */
function validateAll(values: readonly unknown[], many: boolean): InvoiceInput[] {
  const details: InvoiceErrorDetail[] = []
  const invoices: InvoiceInput[] = []
  const firstIndex = new Map<string, number>()
  values.forEach((value, index) => {
    const prefix = many ? `${index}.` : ''
    const result = validateInvoice(value)
    if (!result.ok) {
      for (const problem of result.problems) {
        details.push({ path: `${prefix}${problem.field}`.replace(/\.$/, ''), message: problem.message })
      }
      return
    }
    const first = firstIndex.get(result.invoice.id)
    if (first !== undefined) {
      details.push({ path: `${prefix}id`, message: `repeats the id of invoice ${first}` })
      return
    }
    firstIndex.set(result.invoice.id, index)
    invoices.push(result.invoice)
  })
  if (details.length > 0) throw validationError(details)
  return invoices
}

function view(row: InvoiceWithState): Invoice {
  return invoiceView(row, row.state)
}

/**
 * How a write of invoices (or of what changes them, such as credit notes) tells matching: `afterWrite` inside the
 * writing transaction, `notify` after the commit (a failure is logged; the write stands).
 */
export function invoiceChangeHooks(context: InvoicesContext): {
  afterWrite: InvoicesWrittenHook | undefined
  notify(ids: string[]): Promise<void>
} {
  const listener = context.matching
  return {
    afterWrite: listener?.invoicesWritten ? (trx, ids) => listener.invoicesWritten!(trx, ids) : undefined,
    async notify(ids) {
      if (ids.length === 0 || !listener?.invoicesChanged) return
      try {
        await listener.invoicesChanged(ids)
      } catch (error) {
        context.logger?.error({ err: error, invoices: ids.length }, 'matching after an invoice change failed')
      }
    },
  }
}

/** The invoice library over a store and a clock; routes and commands build one from their context. */
export function createInvoices(context: InvoicesContext): Invoices {
  const { db } = context.store
  const { afterWrite, notify } = invoiceChangeHooks(context)

  async function write(
    invoices: InvoiceInput[],
    onProgress?: (written: number) => void,
  ): Promise<Array<{ row: InvoiceWithState; created: boolean; changed: boolean }>> {
    const outcomes = await upsertInvoices(db, invoices.map(withKeys), context.clock.now(), {
      afterWrite,
      onProgress,
    })
    await notify(outcomes.filter((outcome) => outcome.changed).map((outcome) => outcome.row.id))
    const states = new Map<string, InvoiceWithState>()
    for (let start = 0; start < outcomes.length; start += STATE_READ_CHUNK) {
      const ids = outcomes.slice(start, start + STATE_READ_CHUNK).map((outcome) => outcome.row.id)
      for (const row of await getInvoices(db, ids)) states.set(row.id, row)
    }
    return outcomes.map((outcome) => ({
      row: states.get(outcome.row.id) ?? { ...outcome.row, state: null },
      created: outcome.created,
      changed: outcome.changed,
    }))
  }

  async function upsert(input: unknown): Promise<InvoiceUpsertResult | InvoiceUpsertResult[]> {
    const many = Array.isArray(input)
    const invoices = validateAll(many ? input : [input], many)
    const results = (await write(invoices)).map(({ row, created, changed }) => ({
      invoice: view(row),
      created,
      changed,
    }))
    return many ? results : results[0]!
  }

  return {
    upsert: upsert as Invoices['upsert'],

    async import(csv, options = {}) {
      const parsed = await parseInvoiceCsv(csv, options)
      if (!parsed.ok) return parsed
      const total = parsed.invoices.length
      const outcomes = await upsertInvoices(db, parsed.invoices.map(withKeys), context.clock.now(), {
        afterWrite,
        onProgress: (written) => options.onWritten?.(written, total),
      })
      await notify(outcomes.filter((outcome) => outcome.changed).map((outcome) => outcome.row.id))
      return {
        ok: true,
        rows: total,
        created: outcomes.filter((outcome) => outcome.created).length,
        updated: outcomes.filter((outcome) => outcome.changed && !outcome.created).length,
        unchanged: outcomes.filter((outcome) => !outcome.changed).length,
      }
    },

    async get(id) {
      const row = await getInvoice(db, id)
      return row && view(row)
    },

    async list(params = {}) {
      const parsed = InvoiceListQuery.safeParse(params)
      if (!parsed.success) {
        throw validationError(
          parsed.error.issues.map((issue) => ({
            path: issue.path.map(String).join('.'),
            message: issue.message,
          })),
        )
      }
      const { status, customer, cursor, limit } = parsed.data
      const fingerprint = invoiceListFingerprint({ status, customer })
      const afterId = cursor === undefined ? undefined : decodeInvoiceCursor(cursor, fingerprint)
      const customerKey = customer === undefined ? undefined : normalizeName(customer)
      const rows = await listInvoices(db, { status, customerKey, afterId, limit: limit + 1 })
      const page = rows.slice(0, limit)
      const hasMore = rows.length > limit
      return {
        data: page.map(view),
        pagination: {
          hasMore,
          nextCursor: hasMore ? encodeInvoiceCursor(page.at(-1)!.id, fingerprint) : null,
        },
      }
    },

    async void(id) {
      const voided = await voidInvoice(db, id, context.clock.now(), { afterWrite })
      if (!voided) return undefined
      if (voided.changed) await notify([id])
      const row = await getInvoice(db, id)
      return row && view(row)
    },
  }
}
