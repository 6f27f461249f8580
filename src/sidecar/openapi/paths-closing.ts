import { z } from 'zod'
import { CreditNoteSchema } from '../../credit-notes/index.js'
import { CustomerInputSchema, CustomerListQuery } from '../../customers/index.js'
import { InvoiceInputSchema, InvoiceListQuery } from '../../invoices/index.js'
import { JournalRequest } from '../../journal/index.js'
import { DispositionRequestSchema, InvoiceWriteOffRequestSchema } from '../../closing/index.js'
import * as allocations from '../api/allocations.js'
import * as dispositions from '../api/dispositions.js'
import * as exceptions from '../api/exceptions.js'
import * as matching from '../api/matching.js'
import * as payments from '../api/payments.js'
import * as remittance from '../api/remittance.js'
import * as report from '../api/report.js'
import { operation } from './operation.js'
import * as out from './response-schemas.js'

const ok = (description: string, body?: z.ZodType | Record<string, z.ZodType>) => ({ description, body })
const IdParams = z.object({ id: z.string().min(1).max(255) })
const Csv = z.string().meta({ description: 'CSV text with a header row' })
const csvImport = { 'text/csv': Csv, 'application/json': z.object({ csv: Csv }) }
const decided = {
  201: ok('The disposition, in force', out.Disposition),
  202: ok('The disposition, waiting for a second person', out.Disposition),
}

/** Matching and closing, invoices and the ledger: /api path items. */
export const closingPaths = {
  '/exceptions': {
    get: operation({
      tag: 'matching',
      summary: 'Match exceptions (open ones by default), in key order',
      query: exceptions.Query,
      responses: { 200: ok('A page of exceptions', out.page(out.MatchException)) },
    }),
  },
  ...Object.fromEntries(
    (['accept', 'reject'] as const).map((action) => [
      `/exceptions/{key}/${action}`,
      {
        post: operation({
          tag: 'matching',
          summary: `${action === 'accept' ? 'Accept' : 'Reject'} a suggested match`,
          role: 'clerk',
          conflict: true,
          path: exceptions.Params,
          responses: { 200: ok('The exception after the matching run', out.MatchException) },
        }),
      },
    ]),
  ),
  '/exceptions/{key}/dispose': {
    post: operation({
      tag: 'closing',
      summary: "A person's disposition of what an exception holds of a payment",
      role: 'clerk',
      conflict: true,
      path: dispositions.KeyParams,
      body: DispositionRequestSchema.strict(),
      responses: decided,
    }),
  },
  '/invoices/{id}/write-off': {
    post: operation({
      tag: 'closing',
      summary: "Write off an invoice's open rest",
      role: 'clerk',
      conflict: true,
      path: dispositions.InvoiceParams,
      body: InvoiceWriteOffRequestSchema.strict(),
      responses: decided,
    }),
  },
  '/dispositions': {
    get: operation({
      tag: 'closing',
      summary: 'Dispositions and write-offs, by status, payment or invoice',
      query: dispositions.Query,
      responses: { 200: ok('Dispositions', z.looseObject({ data: z.array(out.Disposition) })) },
    }),
  },
  ...Object.fromEntries(
    (['approve', 'decline', 'undo'] as const).map((decision) => [
      `/dispositions/{id}/${decision}`,
      {
        post: operation({
          tag: 'closing',
          summary: `${decision[0]!.toUpperCase()}${decision.slice(1)} a disposition`,
          role: decision === 'approve' ? 'approver' : 'clerk',
          conflict: true,
          path: dispositions.IdParams,
          ...(decision === 'undo' ? {} : { body: dispositions.DecisionBody }),
          responses: { 200: ok('The disposition', out.Disposition) },
        }),
      },
    ]),
  ),
  '/allocations': {
    get: operation({
      tag: 'matching',
      summary: 'Allocations of payments to invoices',
      query: allocations.Query,
      responses: { 200: ok('A page of allocations', out.page(out.Allocation)) },
    }),
    post: operation({
      tag: 'matching',
      summary: "A person's match of a payment to an invoice (add or replace)",
      role: 'clerk',
      conflict: true,
      body: allocations.ManualMatch,
      responses: { 201: ok('The allocation', out.Allocation) },
    }),
  },
  '/allocations/{id}': {
    delete: operation({
      tag: 'matching',
      summary: 'Unmatch: reverse an allocation',
      role: 'clerk',
      conflict: true,
      path: allocations.Params,
      responses: { 200: ok('The reversed allocation', out.Allocation) },
    }),
  },
  '/transactions/{id}/give-back': {
    post: operation({
      tag: 'matching',
      summary: "Give a payment back to the engine (undo a person's matches)",
      role: 'clerk',
      conflict: true,
      path: allocations.TransactionParams,
      responses: {
        200: ok(
          'What was removed and the allocations after the run',
          z.looseObject({
            transactionId: z.string(),
            removed: z.number(),
            allocations: z.array(out.Allocation),
          }),
        ),
      },
    }),
  },
  '/transactions/{id}/remittance': {
    post: operation({
      tag: 'closing',
      summary: 'Settle a bank line by its remittance advice (JSON, CSV or camt.054), all or nothing',
      role: 'clerk',
      conflict: true,
      path: remittance.Params,
      query: remittance.Query,
      body: {
        'application/json': remittance.JsonAdvice,
        'text/csv': Csv,
        'application/xml': z.string().meta({ description: 'a camt.054 notification' }),
      },
      responses: {
        201: ok('The matches made', out.RemittanceResult),
        202: ok('The import, waiting for a second person: nothing applied yet', out.RemittanceResult),
      },
    }),
  },
  '/report': {
    get: operation({
      tag: 'reports',
      summary: 'Inflows, matched and unmatched, match rate, receivables by age',
      query: report.Query,
      responses: { 200: ok('The report', out.MatchReport) },
    }),
  },
  '/journal': {
    get: operation({
      tag: 'reports',
      summary: 'The double entries of the days asked, as JSON or an accounting import file',
      description: 'docs/closing.md#journal describes each format and the specification it follows.',
      query: JournalRequest,
      responses: {
        200: ok('The journal', {
          'application/json': out.Journal,
          'text/csv': z.string(),
        }),
      },
    }),
  },
  '/matching/config': {
    get: operation({
      tag: 'matching',
      summary: 'The present matching configuration',
      responses: { 200: ok('The configuration', out.MatchConfig) },
    }),
  },
  '/matching/dry-run': {
    post: operation({
      tag: 'matching',
      summary: 'What the engine would do with a proposed configuration; nothing is written',
      role: 'clerk',
      conflict: true,
      body: matching.DryRun,
      responses: { 200: ok('The dry run', out.DryRunReport) },
    }),
  },
  '/payments': {
    get: operation({
      tag: 'matching',
      summary: 'Bank lines by amount, payer, reference and posting days, with what matching made of them',
      query: payments.PaymentQuery,
      responses: { 200: ok('A page of bank lines', out.page(out.Payment)) },
    }),
  },
  '/open-invoices': {
    get: operation({
      tag: 'matching',
      summary: 'Open invoices by number, customer or amount, for matching a payment by hand',
      query: payments.OpenInvoiceQuery,
      responses: {
        200: ok(
          'Up to `limit` invoices, oldest due first',
          z.looseObject({ data: z.array(out.OpenInvoice) }),
        ),
      },
    }),
  },
  '/invoices': {
    get: operation({
      tag: 'invoices',
      summary: 'Invoices by status and customer',
      query: InvoiceListQuery,
      responses: { 200: ok('A page of invoices', out.page(out.Invoice)) },
    }),
  },
  '/invoices/import': {
    post: operation({
      tag: 'invoices',
      summary: 'Import invoices from CSV, all or nothing',
      role: 'admin',
      body: csvImport,
      responses: { 200: ok('What the import did', out.ImportResult) },
    }),
  },
  '/invoices/{id}': {
    get: operation({
      tag: 'invoices',
      summary: "An invoice with a person's write-offs of its rest",
      path: IdParams,
      responses: { 200: ok('The invoice', out.InvoiceWithWriteOffs) },
    }),
    put: operation({
      tag: 'invoices',
      summary: 'Create or update an invoice',
      role: 'admin',
      path: IdParams,
      body: InvoiceInputSchema.partial({ id: true }),
      responses: { 200: ok('Updated', out.Invoice), 201: ok('Created', out.Invoice) },
    }),
    delete: operation({
      tag: 'invoices',
      summary: 'Void an invoice',
      role: 'admin',
      path: IdParams,
      responses: { 200: ok('The voided invoice', out.Invoice) },
    }),
  },
  '/credit-notes': {
    get: operation({
      tag: 'invoices',
      summary: 'Credit notes, by invoice',
      query: z.object({
        invoiceId: z.string().optional(),
        after: z.string().optional().meta({ description: 'the last id of the page before' }),
        limit: z.coerce.number<number | string>().int().min(1).max(500).default(100),
      }),
      responses: {
        200: ok('Credit notes', z.looseObject({ data: z.array(out.CreditNote), meta: z.looseObject({}) })),
      },
    }),
  },
  '/credit-notes/{id}': {
    get: operation({
      tag: 'invoices',
      summary: 'A credit note',
      path: IdParams,
      responses: { 200: ok('The credit note', out.CreditNote) },
    }),
    put: operation({
      tag: 'invoices',
      summary: 'Create or update a credit note',
      role: 'clerk',
      conflict: true,
      path: IdParams,
      body: CreditNoteSchema.partial({ id: true }),
      responses: {
        200: ok('Updated', out.CreditNote),
        201: ok('Created', out.CreditNote),
        202: ok('Created, waiting for a second person: it nets nothing until approved', out.CreditNote),
      },
    }),
    delete: operation({
      tag: 'invoices',
      summary: 'Void a credit note',
      role: 'clerk',
      conflict: true,
      path: IdParams,
      responses: { 200: ok('The voided credit note', out.CreditNote) },
    }),
  },
  '/customers': {
    get: operation({
      tag: 'customers',
      summary: 'Customers by name',
      query: CustomerListQuery,
      responses: { 200: ok('A page of customers', out.page(out.Customer)) },
    }),
  },
  '/customers/import': {
    post: operation({
      tag: 'customers',
      summary: 'Import customers from CSV, all or nothing',
      role: 'admin',
      body: csvImport,
      responses: { 200: ok('What the import did', out.ImportResult) },
    }),
  },
  '/customers/{id}': {
    get: operation({
      tag: 'customers',
      summary: "A customer with what a person's matches taught",
      path: IdParams,
      responses: { 200: ok('The customer', out.Customer) },
    }),
    put: operation({
      tag: 'customers',
      summary: 'Create or update a customer',
      role: 'admin',
      path: IdParams,
      body: CustomerInputSchema.partial({ id: true }),
      responses: { 200: ok('Updated', out.Customer), 201: ok('Created', out.Customer) },
    }),
  },
  '/customers/{id}/learned/{linkId}': {
    delete: operation({
      tag: 'customers',
      summary: 'Forget a learned link',
      role: 'clerk',
      conflict: true,
      path: z.object({ id: z.string().min(1), linkId: z.string().min(1) }),
      responses: { 200: ok('The forgotten link', out.LearnedLink) },
    }),
  },
}
