import type { Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import type { Clock } from '../clock/index.js'
import { parseCsvRows, type CsvInput, type CsvRowsRefusal } from '../csv-rows/index.js'
import { DomainError, type DomainErrorDetail } from '../errors/index.js'
import { createListCursorCodec, listCursorMessage, listFingerprint } from '../list-cursor/index.js'
import { customerPayerKeys } from '../matching/index.js'
import { normalizeName } from '../matcher/index.js'
import {
  anyOf,
  activeCustomerLinks,
  enqueueMatches,
  getCustomers,
  listCustomers,
  removeCustomerLink,
  enqueuePaymentsOfPayers,
  upsertCustomers,
  type CustomerRow,
  type Database,
} from '../store/index.js'
import { CUSTOMER_CSV_SCHEMA } from './customer-csv.js'
import { validateCustomer, type CustomerInput } from './customer-input.js'
import { customerWrite } from './customer-keys.js'
import { customerView, type Customer, type LearnedLink } from './customer-view.js'

/**
 * A customer operation that did not go through; `code` is stable (validation_error, invalid_cursor, not_found);
 * every detail names the field at fault. The HTTP layer maps its kind like every other domain error's.
 */
export class CustomerError extends DomainError {}

/** What the customer library needs; a `SidecarContext` is one. */
export type CustomersContext = {
  store: { db: Kysely<Database> }
  clock: Clock
  /** Told after a change is committed, so a matching run picks up what it queued. */
  matching?: { requestRun?(reason: string): Promise<void> }
}

export type CustomerUpsertResult = { customer: Customer; created: boolean; changed: boolean }
export type CustomerImportResult =
  { ok: true; rows: number; created: number; updated: number; unchanged: number } | CsvRowsRefusal
export type CustomerList = { data: Customer[]; pagination: { hasMore: boolean; nextCursor: string | null } }

export type Customers = {
  upsert(customers: readonly unknown[]): Promise<CustomerUpsertResult[]>
  upsert(customer: unknown): Promise<CustomerUpsertResult>
  import(csv: CsvInput): Promise<CustomerImportResult>
  get(id: string): Promise<Customer | undefined>
  list(params?: { name?: string; cursor?: string; limit?: number | string }): Promise<CustomerList>
  /** Removes what a person's match taught (a learned account or name); undefined when there is no such link. */
  forget(customerId: string, linkId: string): Promise<LearnedLink | undefined>
}

const cursors = createListCursorCodec('customers', 'cc_', (id) => id.length > 0)

export const CustomerListQuery = z.object({
  name: z.string().trim().min(1, 'must not be blank').optional(),
  cursor: z.string().min(1, 'must not be blank').optional(),
  limit: z.coerce
    .number({ error: 'must be a whole number from 1 to 500' })
    .int('must be a whole number from 1 to 500')
    .min(1, 'must be a whole number from 1 to 500')
    .max(500, 'must be a whole number from 1 to 500')
    .default(100),
})

function validationError(details: DomainErrorDetail[]): CustomerError {
  return new CustomerError(
    'invalid',
    'validation_error',
    details.map((d) => `${d.path} ${d.message}`.trim()).join('; '),
    details,
  )
}

function validateAll(values: readonly unknown[], many: boolean): CustomerInput[] {
  const details: DomainErrorDetail[] = []
  const customers: CustomerInput[] = []
  const seen = new Set<string>()
  values.forEach((value, index) => {
    const prefix = many ? `${index}.` : ''
    const result = validateCustomer(value)
    if (!result.ok) {
      for (const problem of result.problems) {
        details.push({ path: `${prefix}${problem.field}`.replace(/\.$/, ''), message: problem.message })
      }
    } else if (seen.has(result.customer.id)) {
      details.push({ path: `${prefix}id`, message: 'repeats the id of an earlier customer' })
    } else {
      seen.add(result.customer.id)
      customers.push(result.customer)
    }
  })
  if (details.length > 0) throw validationError(details)
  return customers
}

/**
 * Queues matching for what a customer change may alter: the customer's invoices and the payments whose payer
 * keys lead to it (its names, accounts and learned links), in the writing transaction.
 */
async function queueMatching(trx: Transaction<Database>, rows: readonly CustomerRow[]): Promise<void> {
  if (rows.length === 0) return
  const ids = rows.map((row) => row.id)
  const links = await activeCustomerLinks(trx, ids)
  const keys = rows.flatMap((row) =>
    customerPayerKeys(
      row,
      links.filter((link) => link.customer_id === row.id),
    ),
  )
  const invoices = await trx
    .selectFrom('invoices')
    .select('id')
    .where('customer_id', '=', anyOf(ids))
    .execute()
  await enqueueMatches(
    trx,
    'invoice',
    invoices.map((row) => row.id),
  )
  await enqueuePaymentsOfPayers(trx, keys)
}

/** The customer library over a store and a clock; routes and commands build one from their context. */
export function createCustomers(context: CustomersContext): Customers {
  const { db } = context.store
  const requestRun = async () => context.matching?.requestRun?.('customers-changed')

  async function write(customers: readonly CustomerInput[]) {
    const outcomes = await db.transaction().execute(async (trx) => {
      const written = await upsertCustomers(trx, customers.map(customerWrite), context.clock.now())
      await queueMatching(
        trx,
        written.filter((outcome) => outcome.changed).map((outcome) => outcome.row),
      )
      return written
    })
    if (outcomes.some((outcome) => outcome.changed)) await requestRun()
    return outcomes
  }

  async function view(rows: readonly CustomerRow[]): Promise<Customer[]> {
    const links = await activeCustomerLinks(
      db,
      rows.map((row) => row.id),
    )
    return rows.map((row) =>
      customerView(
        row,
        links.filter((link) => link.customer_id === row.id),
      ),
    )
  }

  async function upsert(input: unknown): Promise<CustomerUpsertResult | CustomerUpsertResult[]> {
    const many = Array.isArray(input)
    const outcomes = await write(validateAll(many ? input : [input], many))
    const views = await view(outcomes.map((outcome) => outcome.row))
    const results = outcomes.map((outcome, index) => ({
      customer: views[index] as Customer,
      created: outcome.created,
      changed: outcome.changed,
    }))
    return many ? results : (results[0] as CustomerUpsertResult)
  }

  return {
    upsert: upsert as Customers['upsert'],
    async import(csv) {
      const parsed = await parseCsvRows(csv, CUSTOMER_CSV_SCHEMA)
      if (!parsed.ok) return parsed
      const outcomes = await write(parsed.rows)
      return {
        ok: true,
        rows: outcomes.length,
        created: outcomes.filter((outcome) => outcome.created).length,
        updated: outcomes.filter((outcome) => outcome.changed && !outcome.created).length,
        unchanged: outcomes.filter((outcome) => !outcome.changed).length,
      }
    },
    async get(id) {
      const rows = await getCustomers(db, [id])
      return rows.length === 0 ? undefined : (await view(rows))[0]
    },
    async list(params = {}) {
      const parsed = CustomerListQuery.safeParse(params)
      if (!parsed.success) {
        throw validationError(
          parsed.error.issues.map((issue) => ({
            path: issue.path.map(String).join('.'),
            message: issue.message,
          })),
        )
      }
      const { name, cursor, limit } = parsed.data
      const fingerprint = listFingerprint('customers', { name })
      let afterId: string | undefined
      if (cursor !== undefined) {
        const decoded = cursors.decode(cursor, fingerprint)
        if (!decoded.ok) {
          const message = listCursorMessage(decoded.problem, 'name')
          throw new CustomerError('invalid', 'invalid_cursor', `cursor ${message}`, [
            { path: 'cursor', message },
          ])
        }
        afterId = decoded.after
      }
      const nameKey = name === undefined ? undefined : normalizeName(name)
      const rows = await listCustomers(db, { nameKey, afterId, limit: limit + 1 })
      const page = rows.slice(0, limit)
      const hasMore = rows.length > limit
      return {
        data: await view(page),
        pagination: { hasMore, nextCursor: hasMore ? cursors.encode(page.at(-1)!.id, fingerprint) : null },
      }
    },
    async forget(customerId, linkId) {
      const removed = await db.transaction().execute(async (trx) => {
        const link = await removeCustomerLink(trx, customerId, linkId, context.clock.now())
        if (link) {
          const keys = [`${link.kind === 'account' ? 'la' : 'ln'}:${link.key}`]
          await enqueuePaymentsOfPayers(trx, keys)
        }
        return link
      })
      if (!removed) return undefined
      await requestRun()
      return customerView((await getCustomers(db, [customerId]))[0]!, [removed]).learned[0]
    },
  }
}
