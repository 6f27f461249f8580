import { enqueueMatches, upsertCustomers, upsertTransactions } from '../../src/store/index.js'
import { customerWrite } from '../../src/customers/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'

export type Controlled = Awaited<ReturnType<typeof startControlledSidecar>>

/** The chart the issue-26 tests book to: one account per kind and a second write-off account. */
export const LEDGER_ACCOUNTS =
  '6800:write_off,6810:write_off,1590:clearing,2890:refund,2400:on_account,8990:ignore,4100:credit_note'

/**
 * A sidecar (API role, real PostgreSQL and Redis) with APPROVAL_THRESHOLD_AMOUNT=500 and the users of the attack
 * review: a viewer, two clerks and an approver; `call` speaks to its HTTP API as one of them.
 */
export async function startControlledSidecar(label: string, env: Record<string, string> = {}) {
  const sidecar = await startTestSidecar(label, ['api'], {
    APPROVAL_THRESHOLD_AMOUNT: '500',
    LEDGER_ACCOUNTS,
    ...env,
  })
  const tokens: Record<string, string> = { admin: API_TOKEN }
  async function call(who: string, method: string, path: string, body?: unknown, type = 'application/json') {
    const response = await fetch(`${sidecar.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who] ?? who}`,
        ...(body === undefined ? {} : { 'content-type': type }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    const json = response.headers.get('content-type')?.includes('json')
    return { status: response.status, body: text && json ? (JSON.parse(text) as any) : text }
  }
  for (const [name, role] of [
    ['vera', 'viewer'],
    ['carl', 'clerk'],
    ['cleo', 'clerk'],
    ['april', 'approver'],
  ] as const) {
    tokens[name] = (await call('admin', 'POST', '/api/users', { name, role })).body.token
  }
  const { db } = sidecar.context.store
  await upsertCustomers(
    db,
    [
      customerWrite({ id: 'c-acme', name: 'Acme Corp', aliases: [], bankAccounts: [] }),
      customerWrite({ id: 'c-beta', name: 'Beta GmbH', aliases: [], bankAccounts: [] }),
    ],
    new Date(),
  )
  return {
    sidecar,
    tokens,
    call,
    async invoice(id: string, amount: string, customerId = 'c-acme', currency = 'USD') {
      const number = `INV-${id.toUpperCase()}`
      const put = await call('admin', 'PUT', `/api/invoices/${id}`, { number, amount, currency, customerId })
      if (put.status >= 300) throw new Error(`invoice ${id}: ${JSON.stringify(put.body)}`)
      return number
    },
    async invoiceState(id: string) {
      return (await call('carl', 'GET', `/api/invoices/${id}`)).body
    },
    /** A payment mirrored and matched by the engine. */
    async pay(
      n: number,
      amount: string,
      reference: string | null,
      payer = 'Somebody Else',
      currency = 'USD',
    ) {
      await upsertTransactions(db, [
        mirrorRow(n, {
          amount,
          currency,
          payment_reference: reference,
          description: null,
          counterparty_name: payer,
        }),
      ])
      await enqueueMatches(db, 'transaction', [txId(n)])
      await sidecar.context.matching.runNow()
      return txId(n)
    },
    async openExceptions(transactionId: string) {
      return (await call('carl', 'GET', `/api/exceptions?transactionId=${transactionId}`)).body
        .data as Array<{
        key: string
        type: string
        amount: string
      }>
    },
    async journal() {
      const day = new Date().toISOString().slice(0, 10)
      return (await call('carl', 'GET', `/api/journal?from=${day}&to=${day}`)).body
    },
    async audit(entity: string, entityId?: string) {
      let query = db
        .selectFrom('audit_log')
        .select(['actor', 'actor_role', 'action'])
        .where('entity', '=', entity)
      if (entityId !== undefined) query = query.where('entity_id', '=', entityId)
      return query.orderBy('seq').execute()
    },
    async appEvents(type: string) {
      return db.selectFrom('app_events').select(['type', 'payload']).where('type', '=', type).execute()
    },
    async close() {
      await sidecar.close()
      await sidecar.drop()
    },
  }
}
