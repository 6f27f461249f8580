import { Router } from 'express'
import { z } from 'zod'
import { DecimalString, IsoDate, Limit } from '../../api-client/index.js'
import { listFingerprint } from '../../list-cursor/index.js'
import {
  searchOpenInvoices,
  searchPayments,
  type OpenInvoiceRow,
  type PaymentSearchRow,
} from '../../store/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import { decodeMirrorCursor, mirrorPage } from './mirror-cursor.js'

const Text = z.string().trim().min(1).max(200)

export const PaymentQuery = z
  .object({
    amount: DecimalString.optional(),
    payer: Text.optional(),
    reference: Text.optional(),
    from: IsoDate.optional(),
    to: IsoDate.optional(),
    cursor: z.string().min(1).optional(),
    limit: Limit.default(50),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    path: ['to'],
    message: 'must not be before from',
  })

export const OpenInvoiceQuery = z.object({
  q: Text,
  currency: z
    .string()
    .regex(/^[A-Z0-9]{3,12}$/, 'must be a currency code such as EUR')
    .optional(),
  limit: Limit.max(50).default(20),
})

export function presentPayment(row: PaymentSearchRow) {
  return {
    id: row.id,
    accountId: row.account_id,
    postedDate: row.posted_date,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    payer: row.counterparty_name,
    paymentReference: row.payment_reference,
    description: row.description,
    allocated: row.allocated,
    openException: row.open_exception,
  }
}

export function presentOpenInvoice(row: OpenInvoiceRow) {
  return {
    id: row.id,
    number: row.number,
    customerName: row.customer_name,
    amount: row.amount,
    amountOpen: row.amount_open,
    currency: row.currency,
    dueDate: row.due_date,
  }
}

/** The search both the API and the dashboard's typeahead answer with. */
export async function findOpenInvoices(context: SidecarContext, query: unknown) {
  const { q, currency, limit } = parseRequest(OpenInvoiceQuery, query, 'query')
  const rows = await searchOpenInvoices(context.store.db, q, { currency, limit })
  return { data: rows.map(presentOpenInvoice) }
}

/** A page of bank lines matching a search, in id order (the dashboard's Payments page reads the same). */
export async function findPayments(context: SidecarContext, query: unknown, requestId: string) {
  const { cursor, limit, ...search } = parseRequest(PaymentQuery, query, 'query')
  const fingerprint = listFingerprint('payments', search)
  const after = cursor ? decodeMirrorCursor(cursor, fingerprint) : null
  const rows = await searchPayments(context.store.db, search, after, limit + 1)
  return mirrorPage(rows, limit, fingerprint, requestId, presentPayment)
}

/**
 * GET /api/payments (bank lines by amount, payer, reference and posting days, with what matching made of them)
 * and GET /api/open-invoices?q= (open invoices by number, customer or amount, for matching by hand).
 */
export function paymentRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/payments',
    handle(async (req, res) => {
      res.json(await findPayments(context, req.query, String(res.locals.requestId)))
    }),
  )
  router.get(
    '/open-invoices',
    handle(async (req, res) => {
      res.json(await findOpenInvoices(context, req.query))
    }),
  )
  return router
}
