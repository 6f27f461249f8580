import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  enqueueMatches,
  upsertCustomers,
  upsertTransactions,
  verifyAuditChain,
} from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'
import { customerWrite } from '../../src/customers/index.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
const tokens: Record<'clerk' | 'approver', string> = { clerk: '', approver: '' }

async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  const json = response.headers.get('content-type')?.includes('json')
  return { status: response.status, body: text && json ? (JSON.parse(text) as any) : text }
}

/** A payment mirrored and matched by the engine (no worker runs in this process: the test drains the outbox). */
async function pay(n: number, amount: string, reference: string | null, payer = 'ACME', currency = 'USD') {
  const { db } = sidecar.context.store
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
}

async function open(transactionId: string) {
  return (await call(tokens.clerk, 'GET', `/api/exceptions?transactionId=${transactionId}`)).body.data
}

beforeAll(async () => {
  sidecar = await startTestSidecar('closing_api', ['api'], {
    APPROVAL_THRESHOLD_AMOUNT: '100.00,EUR=10',
    // Issue 26: accounts come from the chart (the defaults and this install's numbered ones).
    LEDGER_ACCOUNTS:
      '6800 Bank charges:write_off,6900 Bad debts:write_off,Write-offs:write_off,Suspense:clearing,' +
      'Refunds payable:refund,Customer credit:on_account,Not receivables:ignore',
  })
  for (const [role, name] of [
    ['clerk', 'carl'],
    ['approver', 'april'],
  ] as const) {
    const created = await call(API_TOKEN, 'POST', '/api/users', { name, role })
    tokens[role] = created.body.token
  }
  await upsertCustomers(
    sidecar.context.store.db,
    [customerWrite({ id: 'c-acme', name: 'Acme Corp', aliases: [], bankAccounts: [] })],
    new Date(),
  )
  const invoice = { number: 'INV-1001', amount: '800.00', currency: 'USD', customerId: 'c-acme' }
  expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-1', invoice)).status).toBe(201)
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('manual matches add up', () => {
  it('refuses to add a 15.00 fee the payment does not hold, keeps a replace’s rest open, and gives back', async () => {
    const tx = await pay(1, '785.00', 'INV-1001')
    const added = await call(tokens.clerk, 'POST', '/api/allocations', {
      transactionId: tx,
      invoiceId: 'inv-1',
      amount: '15.00',
    })
    expect(added.status).toBe(409)
    expect(added.body.error).toMatchObject({ code: 'exceeds_payment' })
    expect(added.body.error.message).toContain('0.00 not yet allocated or disposed')
    const replaced = await call(tokens.clerk, 'POST', '/api/allocations', {
      transactionId: tx,
      invoiceId: 'inv-1',
      amount: '15.00',
      mode: 'replace',
    })
    expect(replaced.status).toBe(201)
    expect(replaced.body).toMatchObject({ amount: '15', madeBy: 'person', actor: 'carl' })
    expect(await open(tx)).toMatchObject([{ type: 'unmatched_payment', amount: '770' }])

    const back = await call(tokens.clerk, 'POST', `/api/transactions/${tx}/give-back`)
    expect(back.status).toBe(200)
    expect(back.body.allocations).toMatchObject([{ amount: '785', madeBy: 'engine' }])
    expect(await open(tx)).toEqual([])
    const again = await call(tokens.clerk, 'POST', `/api/transactions/${tx}/give-back`)
    expect(again.status).toBe(409)
    expect(
      (
        await call(tokens.clerk, 'POST', '/api/allocations', {
          transactionId: tx,
          invoiceId: 'inv-1',
          mode: 'merge',
        })
      ).status,
    ).toBe(400)
  })
})

describe('dispositions', () => {
  it('holds a write-off above the threshold for a second person, books it to the journal, and undoes it', async () => {
    const tx = await pay(2, '1000.00', null)
    const [exception] = await open(tx)
    expect(exception).toMatchObject({ type: 'unmatched_payment', amount: '1000' })
    const accept = await call(
      tokens.clerk,
      'POST',
      `/api/exceptions/${encodeURIComponent(exception.key)}/accept`,
    )
    expect(accept.status).toBe(409)
    expect(accept.body.error.message).toContain('/dispose')

    const made = await call(
      tokens.clerk,
      'POST',
      `/api/exceptions/${encodeURIComponent(exception.key)}/dispose`,
      {
        kind: 'write_off',
        reason: 'bank error, refunded by the bank',
        account: '6800 Bank charges',
      },
    )
    expect(made.status).toBe(202)
    expect(made.body).toMatchObject({ status: 'pending_approval', amount: '1000', madeBy: 'carl' })
    expect(await open(tx)).toHaveLength(1)
    const self = await call(tokens.clerk, 'POST', `/api/dispositions/${made.body.id}/approve`)
    expect(self.status).toBe(403)
    const approved = await call(tokens.approver, 'POST', `/api/dispositions/${made.body.id}/approve`)
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({ status: 'active', decidedBy: 'april' })
    expect(await open(tx)).toEqual([])

    const day = new Date().toISOString().slice(0, 10)
    const journal = await call(tokens.clerk, 'GET', `/api/journal?from=${day}&to=${day}`)
    expect(journal.status).toBe(200)
    const entry = journal.body.entries.find((item: any) => item.kind === 'disposition')
    expect(entry.lines).toEqual([
      { account: 'Bank', debit: '1000.00', credit: '0.00' },
      { account: '6800 Bank charges', debit: '0.00', credit: '1000.00' },
    ])

    // Issue 26: only an approver may undo what an approver approved.
    const clerkUndo = await call(tokens.clerk, 'POST', `/api/dispositions/${made.body.id}/undo`)
    expect([clerkUndo.status, clerkUndo.body.error.code]).toEqual([403, 'role_required'])
    const undone = await call(tokens.approver, 'POST', `/api/dispositions/${made.body.id}/undo`)
    expect(undone.body).toMatchObject({ status: 'undone', undoneBy: 'april' })
    expect(await open(tx)).toMatchObject([{ key: exception.key, amount: '1000' }])
    const after = await call(tokens.clerk, 'GET', `/api/journal?from=${day}&to=${day}&format=xero-csv`)
    expect(after.body).toContain('Date,Amount,Payee,Description,Reference\r\n')
    expect(after.body).toMatch(/,-1000\.00,/)
    const audit = await sidecar.context.store.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('entity', '=', 'disposition')
      .orderBy('seq')
      .execute()
    expect(audit).toEqual([
      { actor: 'carl', action: 'disposition.requested' },
      { actor: 'april', action: 'disposition.approved' },
      { actor: 'april', action: 'disposition.undone' },
    ])
    expect(await verifyAuditChain(sidecar.context.store.db)).toMatchObject({ ok: true })
  })

  it('keeps an overpayment on account and applies it to the customer’s next invoice', async () => {
    await upsertCustomers(
      sidecar.context.store.db,
      [customerWrite({ id: 'c-beta', name: 'Beta GmbH', aliases: [], bankAccounts: [] })],
      new Date(),
    )
    const invoice = { number: 'INV-3003', amount: '800.00', currency: 'USD', customerId: 'c-beta' }
    expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-3', invoice)).status).toBe(201)
    const tx = await pay(3, '830.00', 'INV-3003', 'Beta GmbH')
    const overpayment = (await open(tx)).find((item: any) => item.type === 'overpayment')
    expect(overpayment).toMatchObject({ amount: '30' })
    const made = await call(
      tokens.clerk,
      'POST',
      `/api/exceptions/${encodeURIComponent(overpayment.key)}/dispose`,
      { kind: 'on_account', reason: 'customer asked to keep it' },
    )
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ customerId: 'c-beta', account: 'Customer credit' })
    const next = { number: 'INV-3004', amount: '50.00', currency: 'USD', customerId: 'c-beta' }
    expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-2', next)).status).toBe(201)
    await sidecar.context.matching.runNow()
    const credit = await call(tokens.clerk, 'GET', `/api/allocations?invoiceId=inv-2`)
    expect(credit.body.data).toMatchObject([{ transactionId: tx, amount: '30', rule: 'credit' }])
  })

  it('declines a waiting write-off: the exception stays open and the journal books nothing for it', async () => {
    const tx = await pay(4, '640.00', null)
    const [exception] = await open(tx)
    const made = await call(
      tokens.clerk,
      'POST',
      `/api/exceptions/${encodeURIComponent(exception.key)}/dispose`,
      {
        kind: 'write_off',
        reason: 'too small to chase',
      },
    )
    expect(made.status).toBe(202)
    const declined = await call(tokens.approver, 'POST', `/api/dispositions/${made.body.id}/decline`)
    expect(declined.body).toMatchObject({ status: 'declined', decidedBy: 'april' })
    expect(await open(tx)).toMatchObject([{ key: exception.key, amount: '640' }])
    expect((await call(tokens.approver, 'POST', `/api/dispositions/${made.body.id}/approve`)).status).toBe(
      409,
    )
    const day = new Date().toISOString().slice(0, 10)
    const journal = await call(tokens.clerk, 'GET', `/api/journal?from=${day}&to=${day}&format=csv`)
    expect(journal.body).not.toContain(tx)
  })

  it('refuses a bad disposition with a 400 naming the field, and an unknown exception with a 404', async () => {
    const bad = await call(tokens.clerk, 'POST', '/api/exceptions/x/dispose', { kind: 'burn', reason: '' })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/kind/)
    const missing = await call(tokens.clerk, 'POST', '/api/exceptions/x/dispose', {
      kind: 'ignore',
      reason: 'r',
    })
    expect(missing.status).toBe(404)
    const journal = await call(tokens.clerk, 'GET', '/api/journal?from=2026-02-30&to=2026-03-01')
    expect(journal.status).toBe(400)
  })
})

describe('a person writes off an invoice’s open rest', () => {
  const invoiceOf = async (id: string) => (await call(tokens.clerk, 'GET', `/api/invoices/${id}`)).body
  const journalOf = async () => {
    const day = new Date().toISOString().slice(0, 10)
    return (await call(tokens.clerk, 'GET', `/api/journal?from=${day}&to=${day}`)).body.entries as any[]
  }

  it('closes a 0.37 rest as paid, books it, keeps it closed over matching runs, and reopens it on undo', async () => {
    const invoice = { number: 'INV-5001', amount: '800.00', currency: 'USD', customerId: 'c-acme' }
    expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-5', invoice)).status).toBe(201)
    await pay(5, '799.63', 'INV-5001')
    expect(await invoiceOf('inv-5')).toMatchObject({ status: 'partially_paid', amountOpen: '0.37' })

    const tooMuch = await call(tokens.clerk, 'POST', '/api/invoices/inv-5/write-off', {
      amount: '0.38',
      reason: 'rounding',
    })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.error).toMatchObject({ code: 'exceeds_open' })
    expect(tooMuch.body.error.message).toContain('0.37')

    const made = await call(tokens.clerk, 'POST', '/api/invoices/inv-5/write-off', {
      reason: 'rounding',
      note: 'payer’s bank rounded',
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      invoiceId: 'inv-5',
      kind: 'write_off',
      amount: '0.37',
      currency: 'USD',
      reason: 'rounding',
      note: 'payer’s bank rounded',
      account: 'write-off',
      status: 'active',
      madeBy: 'carl',
      exceptionKey: null,
      transactionId: null,
    })
    expect(await invoiceOf('inv-5')).toMatchObject({
      status: 'paid',
      amountOpen: '0',
      amountPaid: '799.63',
      amountWrittenOff: '0.37',
      writeOffs: [{ id: made.body.id, status: 'active' }],
    })
    const again = await call(tokens.clerk, 'POST', '/api/invoices/inv-5/write-off', { reason: 'other' })
    expect(again.status).toBe(409)
    expect(again.body.error).toMatchObject({ code: 'invoice_paid' })

    // A later run does not reopen it.
    await enqueueMatches(sidecar.context.store.db, 'invoice', ['inv-5'])
    await sidecar.context.matching.runNow()
    expect(await invoiceOf('inv-5')).toMatchObject({ status: 'paid', amountOpen: '0' })

    const entry = (await journalOf()).find((item) => item.kind === 'invoice_write_off')
    expect(entry).toMatchObject({ invoiceId: 'inv-5', invoiceNumber: 'INV-5001', transactionId: null })
    expect(entry.lines).toEqual([
      { account: 'write-off', debit: '0.37', credit: '0.00' },
      { account: 'Accounts Receivable', debit: '0.00', credit: '0.37' },
    ])

    const undone = await call(tokens.clerk, 'POST', `/api/dispositions/${made.body.id}/undo`)
    expect(undone.body).toMatchObject({ status: 'undone', undoneBy: 'carl' })
    expect(await invoiceOf('inv-5')).toMatchObject({
      status: 'partially_paid',
      amountOpen: '0.37',
      amountWrittenOff: '0',
    })
    // The settlement may be booked again with new evidence (the payment now pays the open amount exactly).
    const kinds = (await journalOf()).filter((item) => item.invoiceId === 'inv-5').map((item) => item.kind)
    expect(kinds.filter((kind) => kind.startsWith('invoice_write_off'))).toEqual([
      'invoice_write_off',
      'invoice_write_off_undone',
    ])
    expect(kinds.filter((kind) => kind === 'settlement').length).toBe(
      kinds.filter((kind) => kind === 'settlement_reversed').length + 1,
    )
    const listed = await call(tokens.clerk, 'GET', '/api/dispositions?invoiceId=inv-5')
    expect(listed.body.data).toMatchObject([{ id: made.body.id, status: 'undone' }])
  })

  it('holds a write-off above the currency’s threshold for an approver; a later payment is not allocated to it', async () => {
    const invoice = { number: 'INV-6001', amount: '100.00', currency: 'EUR', customerId: 'c-acme' }
    expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-6', invoice)).status).toBe(201)
    await pay(6, '80.00', 'INV-6001', 'ACME', 'EUR')
    const made = await call(tokens.clerk, 'POST', '/api/invoices/inv-6/write-off', {
      reason: 'bad_debt',
      account: '6900 Bad debts',
    })
    expect(made.status).toBe(202)
    expect(made.body).toMatchObject({ status: 'pending_approval', amount: '20', account: '6900 Bad debts' })
    expect(await invoiceOf('inv-6')).toMatchObject({ status: 'partially_paid', amountOpen: '20' })
    // What waits for approval is no longer there to write off twice.
    const twice = await call(tokens.clerk, 'POST', '/api/invoices/inv-6/write-off', {
      amount: '5',
      reason: 'other',
    })
    expect(twice.status).toBe(409)
    expect((await call(tokens.clerk, 'POST', `/api/dispositions/${made.body.id}/approve`)).status).toBe(403)
    const approved = await call(tokens.approver, 'POST', `/api/dispositions/${made.body.id}/approve`)
    expect(approved.body).toMatchObject({ status: 'active', decidedBy: 'april' })
    expect(await invoiceOf('inv-6')).toMatchObject({
      status: 'paid',
      amountOpen: '0',
      amountWrittenOff: '20',
    })

    const late = await pay(7, '20.00', 'INV-6001', 'ACME', 'EUR')
    const allocations = await call(tokens.clerk, 'GET', '/api/allocations?invoiceId=inv-6')
    expect(allocations.body.data.map((row: any) => row.transactionId)).not.toContain(late)
    // As with any paid invoice, money beyond it is an overpayment, held by an exception: never allocated.
    expect(await invoiceOf('inv-6')).toMatchObject({
      status: 'overpaid',
      amountPaid: '80',
      amountOpen: '0',
      amountWrittenOff: '20',
    })
    expect((await open(late)).length).toBeGreaterThan(0)
  })

  it('refuses a void invoice with a 409 and an unknown one with a 404', async () => {
    const invoice = { number: 'INV-7001', amount: '10.00', currency: 'USD' }
    expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-7', invoice)).status).toBe(201)
    expect((await call(API_TOKEN, 'DELETE', '/api/invoices/inv-7')).status).toBe(200)
    const voided = await call(tokens.clerk, 'POST', '/api/invoices/inv-7/write-off', { reason: 'other' })
    expect(voided.status).toBe(409)
    expect(voided.body.error).toMatchObject({ code: 'invoice_void' })
    const missing = await call(tokens.clerk, 'POST', '/api/invoices/nope/write-off', { reason: 'other' })
    expect(missing.status).toBe(404)
  })
})
