import { afterAll, describe, expect, it, vi } from 'vitest'
import { API_TOKEN } from '../sidecar/sidecar-fixture.js'
import { startIdlePipeline, type IdlePipeline } from '../support/one-paid-delivery.js'

/**
 * Issue 25 rule 6, end to end: the sandbox bank books a payment quoting an invoice number the books do not have
 * yet; it is applied to no other invoice (not even the payer's open one of the same amount) and waits as an
 * exception. When the invoice with that number is created through the API, matching runs again and applies it.
 */
describe('a payment for an invoice not in the books yet', () => {
  let pipeline: IdlePipeline | undefined

  afterAll(async () => {
    await pipeline?.close()
  })

  it('waits as an exception and is applied when the invoice with its number arrives', async () => {
    pipeline = await startIdlePipeline('awaiting_invoice', 'redis')
    const { sidecar, app } = pipeline
    const { bank, store } = sidecar.context
    const connectionId = (await store.db.selectFrom('connections').select('id').executeTakeFirstOrThrow()).id
    const currency = (await bank.client.accounts.list({ connectionId })).data[0]!.currency
    const booked = await fetch(`${bank.sandbox!.url}/_sandbox/connections/${connectionId}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
      // The same amount as the payer's open invoice PATH-1, but it quotes PATH-2002.
      body: JSON.stringify({
        amount: '125.00',
        paymentReference: 'Invoice PATH-2002',
        counterpartyName: 'Pathfinder Ltd',
      }),
    })
    expect(booked.status).toBe(201)
    await bank.sandbox!.advance(5)
    await bank.sandbox!.flushWebhooks()

    // The payment booked, once synced; then its open exceptions (the onboarding's own payments have theirs).
    const paymentId = async () =>
      (
        await store.db
          .selectFrom('transactions')
          .select('id')
          .where('payment_reference', '=', 'Invoice PATH-2002')
          .executeTakeFirst()
      )?.id
    const waiting = async () =>
      store.db
        .selectFrom('match_exceptions')
        .select(['type', 'invoice_ids'])
        .where('transaction_id', '=', (await paymentId()) ?? '')
        .where('resolved_at', 'is', null)
        .execute()
    await vi.waitFor(
      async () => {
        if ((await waiting()).length === 0) throw new Error('the payment has not been matched yet')
      },
      { timeout: 30_000, interval: 100 },
    )
    const [exception] = await waiting()
    expect(exception!.invoice_ids).not.toContain('awaiting_invoice-1')
    const allocated = async () =>
      store.db
        .selectFrom('allocations')
        .select(['invoice_id', 'amount'])
        .where('transaction_id', '=', (await paymentId())!)
        .where('reversed_at', 'is', null)
        .execute()
    expect(await allocated()).toEqual([])

    const put = await fetch(`${sidecar.url}/api/invoices/awaiting_invoice-2`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        number: 'PATH-2002',
        amount: '125.00',
        currency,
        customerName: 'Pathfinder Ltd',
      }),
    })
    expect(put.status).toBe(201)
    await vi.waitFor(
      () => {
        const told = [...app.processed.values()].some(
          (e) => e.type === 'invoice.paid' && e.data.invoiceId === 'awaiting_invoice-2',
        )
        if (!told) throw new Error('invoice.paid has not reached the app')
      },
      { timeout: 30_000, interval: 50 },
    )
    expect(await allocated()).toEqual([{ invoice_id: 'awaiting_invoice-2', amount: '125' }])
    expect(await waiting()).toEqual([])
    // The payer's open invoice of the same amount was never touched.
    const first = await store.db
      .selectFrom('allocations')
      .select('id')
      .where('invoice_id', '=', 'awaiting_invoice-1')
      .execute()
    expect(first).toEqual([])
  }, 180_000)
})
