import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlledSidecar, type Controlled } from './controls-fixture.js'

/**
 * Issue 26's findings, each reproduced over the real HTTP API (PostgreSQL, Redis; APPROVAL_THRESHOLD_AMOUNT=500;
 * users viewer, clerks carl and cleo, approver april), each with its control: the same operation below the
 * threshold, or by the right person, succeeds.
 */
let s: Controlled
beforeAll(async () => {
  s = await startControlledSidecar('sod')
})
afterAll(async () => {
  await s?.close()
})

const entriesOf = (journal: any, kind: string) =>
  (journal.entries as Array<{ kind: string; invoiceId: string | null; lines: unknown }>).filter(
    (entry) => entry.kind === kind,
  )

describe('a credit note', () => {
  it('above the threshold waits for a second person and changes nothing until approved', async () => {
    await s.invoice('cn1', '8066.25')
    const made = await s.call('carl', 'PUT', '/api/credit-notes/n-1', {
      number: 'CN-1',
      amount: '8066.25',
      currency: 'USD',
      invoiceId: 'cn1',
    })
    expect(made.status).toBe(202)
    expect(made.body).toMatchObject({ status: 'pending_approval', madeBy: 'carl', account: '4100' })
    // Nothing changed: no credit, no paid invoice, no app event, no journal entry.
    expect(await s.invoiceState('cn1')).toMatchObject({ status: 'open', amountCredited: '0' })
    expect(await s.appEvents('invoice.paid')).toEqual([])
    expect(entriesOf(await s.journal(), 'credit_note')).toEqual([])

    expect((await s.call('carl', 'POST', '/api/credit-notes/n-1/approve')).status).toBe(403)
    expect((await s.call('cleo', 'POST', '/api/credit-notes/n-1/approve')).body.error.code).toBe(
      'role_required',
    )
    expect((await s.call('admin', 'POST', '/api/credit-notes/n-1/approve')).body.error.code).toBe(
      'role_required',
    )
    const approved = await s.call('april', 'POST', '/api/credit-notes/n-1/approve')
    expect(approved.body).toMatchObject({ status: 'active', approvedBy: 'april', madeBy: 'carl' })
    await s.sidecar.context.matching.runNow()
    expect(await s.invoiceState('cn1')).toMatchObject({ status: 'paid', amountCredited: '8066.25' })
    const [entry] = entriesOf(await s.journal(), 'credit_note').filter((e) => e.invoiceId === 'cn1')
    expect(entry?.lines).toEqual([
      { account: '4100', debit: '8066.25', credit: '0.00' },
      { account: 'Accounts Receivable', debit: '0.00', credit: '8066.25' },
    ])
    expect(await s.audit('credit_note', 'n-1')).toEqual([
      { actor: 'carl', actor_role: 'clerk', action: 'credit_note.requested' },
      { actor: 'april', actor_role: 'approver', action: 'credit_note.approved' },
    ])
    // Approved: only an approver may void it, and the void is audited and booked back.
    expect((await s.call('carl', 'DELETE', '/api/credit-notes/n-1')).status).toBe(403)
    const voided = await s.call('april', 'DELETE', '/api/credit-notes/n-1')
    expect(voided.body).toMatchObject({ voidedBy: 'april' })
    expect((await s.audit('credit_note', 'n-1')).at(-1)).toEqual({
      actor: 'april',
      actor_role: 'approver',
      action: 'credit_note.voided',
    })
    expect(entriesOf(await s.journal(), 'credit_note_voided').map((e) => e.invoiceId)).toContain('cn1')
  })

  it('control: below the threshold a clerk’s note is in force at once, audited and journaled under the clerk', async () => {
    await s.invoice('cn2', '300.00', 'c-beta')
    const made = await s.call('cleo', 'PUT', '/api/credit-notes/n-2', {
      number: 'CN-2',
      amount: '100.00',
      currency: 'USD',
      invoiceId: 'cn2',
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ status: 'active', madeBy: 'cleo', customerId: 'c-beta' })
    expect(await s.audit('credit_note', 'n-2')).toEqual([
      { actor: 'cleo', actor_role: 'clerk', action: 'credit_note.created' },
    ])
    expect(entriesOf(await s.journal(), 'credit_note').map((e) => e.invoiceId)).toContain('cn2')
    // Made alone: its maker may void it; another clerk may not.
    expect((await s.call('carl', 'DELETE', '/api/credit-notes/n-2')).status).toBe(403)
    expect((await s.call('cleo', 'DELETE', '/api/credit-notes/n-2')).body).toMatchObject({ voidedBy: 'cleo' })
    expect((await s.audit('credit_note', 'n-2')).at(-1)).toMatchObject({
      actor: 'cleo',
      action: 'credit_note.voided',
    })
  })

  it('is refused with 400 naming the field: another customer, over the open amount, negative, unknown account', async () => {
    await s.invoice('cn3', '200.00')
    const put = (body: Record<string, unknown>) =>
      s.call('cleo', 'PUT', '/api/credit-notes/n-3', {
        number: 'CN-3',
        amount: '10.00',
        currency: 'USD',
        invoiceId: 'cn3',
        ...body,
      })
    const paths = async (body: Record<string, unknown>) => {
      const answer = await put(body)
      expect(answer.status).toBe(400)
      return answer.body.error.details.map((d: { path: string }) => d.path)
    }
    expect(await paths({ customerId: 'c-beta' })).toEqual(['body.customerId'])
    expect(await paths({ amount: '200.01' })).toEqual(['body.amount'])
    expect(await paths({ amount: '-5' })).toEqual(['body.amount'])
    const unknown = await put({ account: '6800' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toContain('"4100"')
    // A part payment lowers the open amount: the cap follows it.
    await s.pay(31, '150.00', 'INV-CN3')
    expect(await paths({ amount: '50.01' })).toEqual(['body.amount'])
    expect((await put({ amount: '50.00' })).status).toBe(201)
  })
})

describe('a remittance advice', () => {
  it('whose fee is above the threshold waits, keeps the payment’s matches, and settles once approved', async () => {
    const number = await s.invoice('ra1', '8939.10')
    const tx = await s.pay(41, '1.00', null, 'Unrelated Payer')
    const advice = { lines: [{ invoiceNumber: number, amount: '8939.10' }], fee: '8938.10' }
    const made = await s.call('carl', 'POST', `/api/transactions/${tx}/remittance`, advice)
    expect(made.status).toBe(202)
    expect(made.body).toMatchObject({ status: 'pending_approval', writeOff: '8938.1' })
    expect(await s.invoiceState('ra1')).toMatchObject({ status: 'open' })
    expect(await s.openExceptions(tx)).toMatchObject([{ type: 'unmatched_payment', amount: '1' }])
    // CSV and a second import of the same payment: refused while one waits.
    const csv = await s.call(
      'carl',
      'POST',
      `/api/transactions/${tx}/remittance`,
      `invoiceNumber,amount,fee\n${number},8939.10,8938.10\n`,
      'text/csv',
    )
    expect([csv.status, csv.body.error.code]).toEqual([409, 'remittance_pending'])
    const pending = (await s.call('april', 'GET', '/api/approvals')).body.data
    expect(pending).toContainEqual(
      expect.objectContaining({
        kind: 'remittance',
        id: made.body.importId,
        madeBy: 'carl',
        amount: '8938.1',
      }),
    )
    expect(
      (await s.call('carl', 'POST', `/api/remittance-imports/${made.body.importId}/approve`)).status,
    ).toBe(403)
    expect(
      (await s.call('cleo', 'POST', `/api/remittance-imports/${made.body.importId}/decline`)).status,
    ).toBe(403)
    const approved = await s.call('april', 'POST', `/api/remittance-imports/${made.body.importId}/approve`)
    expect(approved.body).toMatchObject({ status: 'active', approvedBy: 'april', madeBy: 'carl' })
    expect(await s.invoiceState('ra1')).toMatchObject({ status: 'paid' })
    expect((await s.audit('transaction', tx)).map((e) => [e.actor, e.action])).toEqual(
      expect.arrayContaining([
        ['carl', 'remittance.requested'],
        ['april', 'remittance.approved'],
      ]),
    )
  })

  it('through CSV waits the same; its maker may withdraw it', async () => {
    const number = await s.invoice('ra2', '2000.00')
    const tx = await s.pay(42, '1000.00', null, 'Unrelated Payer')
    const made = await s.call(
      'cleo',
      'POST',
      `/api/transactions/${tx}/remittance`,
      `invoiceNumber,amount,fee\n${number},2000.00,1000.00\n`,
      'text/csv',
    )
    expect(made.status).toBe(202)
    const withdrawn = await s.call('cleo', 'POST', `/api/remittance-imports/${made.body.importId}/decline`)
    expect(withdrawn.body).toMatchObject({ status: 'declined', declinedBy: 'cleo' })
    expect(await s.invoiceState('ra2')).toMatchObject({ status: 'open' })
  })

  it('through camt.054 waits the same: the charges are the fee', async () => {
    const number = await s.invoice('ra4', '8939.10')
    const tx = await s.pay(44, '1.00', null, 'Unrelated Payer')
    const camt = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn>
<GrpHdr><MsgId>M-1</MsgId><CreDtTm>2026-03-04T07:30:00</CreDtTm></GrpHdr>
<Ntfctn><Id>N-1</Id><CreDtTm>2026-03-04T07:30:00</CreDtTm><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
<Ntry><NtryRef>HOSTILE-1</NtryRef><Amt Ccy="USD">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
<NtryDtls><TxDtls><AmtDtls><InstdAmt><Amt Ccy="USD">8939.10</Amt></InstdAmt><TxAmt><Amt Ccy="USD">1.00</Amt></TxAmt></AmtDtls>
<Chrgs><Amt Ccy="USD">8938.10</Amt></Chrgs><RmtInf><Ustrd>Invoice ${number}</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry></Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`
    const made = await s.call(
      'carl',
      'POST',
      `/api/transactions/${tx}/remittance?entry=HOSTILE-1`,
      camt,
      'application/xml',
    )
    expect(made.status).toBe(202)
    expect(made.body).toMatchObject({ status: 'pending_approval', writeOff: '8938.1' })
    expect(await s.invoiceState('ra4')).toMatchObject({ status: 'open' })
  })

  it('control: a small fee settles at once under the clerk’s name; a negative fee is a 400 naming it', async () => {
    // cleo: carl's advices above wait, and what waits counts against its maker too.
    const number = await s.invoice('ra3', '800.00', 'c-beta')
    const tx = await s.pay(43, '785.00', null, 'Beta GmbH')
    const bad = await s.call('cleo', 'POST', `/api/transactions/${tx}/remittance`, {
      lines: [{ invoiceNumber: number, amount: '800.00' }],
      fee: '-15.00',
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details[0].path).toBe('body.fee')
    const made = await s.call('cleo', 'POST', `/api/transactions/${tx}/remittance`, {
      lines: [{ invoiceNumber: number, amount: '800.00' }],
      fee: '15.00',
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ status: 'active', writeOff: '15' })
    expect(await s.invoiceState('ra3')).toMatchObject({ status: 'paid' })
  })
})

describe('invoice write-offs', () => {
  it('count together: 6 × 499 + 287.10 cannot close 3,281.10 without a second person', async () => {
    // A clerk of their own: what a maker did alone within APPROVAL_WINDOW_HOURS counts too.
    s.tokens.wendy = (
      await s.call('admin', 'POST', '/api/users', { name: 'wendy', role: 'clerk' })
    ).body.token
    await s.invoice('wo1', '3281.10')
    const statuses: number[] = []
    for (const amount of ['499', '499', '499', '499', '499', '499', '287.10']) {
      const made = await s.call('wendy', 'POST', '/api/invoices/wo1/write-off', {
        reason: 'bad_debt',
        amount,
      })
      statuses.push(made.status)
    }
    expect(statuses).toEqual([201, 202, 202, 202, 202, 202, 202])
    expect(await s.invoiceState('wo1')).toMatchObject({
      status: 'open',
      amountWrittenOff: '499',
      amountOpen: '2782.1',
    })
  })

  it('control: another clerk’s small write-off of another invoice is in force; a bad account is a 400 naming the chart', async () => {
    await s.invoice('wo2', '100.00', 'c-beta')
    const unknown = await s.call('cleo', 'POST', '/api/invoices/wo2/write-off', {
      reason: 'rounding',
      amount: '0.37',
      account: 'Write-offs',
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.details).toEqual([
      { path: 'account', message: expect.stringContaining('configured: "6800", "6810"') },
    ])
    expect(
      (await s.call('cleo', 'POST', '/api/invoices/wo2/write-off', { reason: 'rounding', amount: '-1' }))
        .status,
    ).toBe(400)
    const made = await s.call('cleo', 'POST', '/api/invoices/wo2/write-off', {
      reason: 'rounding',
      amount: '0.37',
      account: '6810',
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      status: 'active',
      madeBy: 'cleo',
      madeByRole: 'clerk',
      account: '6810',
    })
  })
})

describe('dispositions of every kind', () => {
  it('ignore, refund and clearing of 25,000 wait; an account of another kind is a 400', async () => {
    for (const [n, kind] of [
      [51, 'ignore'],
      [52, 'refund'],
      [53, 'clearing'],
    ] as const) {
      const tx = await s.pay(n, '25000.00', null, `Payer ${n}`)
      const [exception] = await s.openExceptions(tx)
      const path = `/api/exceptions/${encodeURIComponent(exception!.key)}/dispose`
      const wrong = await s.call('april', 'POST', path, { kind, reason: 'test', account: '6800' })
      expect(wrong.status).toBe(400)
      expect(wrong.body.error.details[0].path).toBe('account')
      const made = await s.call('april', 'POST', path, { kind, reason: 'not ours' })
      expect(made.status).toBe(202)
      expect(made.body).toMatchObject({ kind, status: 'pending_approval', madeBy: 'april' })
      expect(await s.openExceptions(tx)).toHaveLength(1)
    }
  })

  it('credit on account of another customer than the payer waits; of the payer’s own customer it does not', async () => {
    await s.invoice('oa1', '100.00', 'c-beta')
    const tx = await s.pay(61, '700.00', 'INV-OA1', 'Beta GmbH')
    const [over] = await s.openExceptions(tx)
    expect(over).toMatchObject({ type: 'overpayment', amount: '600' })
    const path = `/api/exceptions/${encodeURIComponent(over!.key)}/dispose`
    const other = await s.call('cleo', 'POST', path, {
      kind: 'on_account',
      reason: 'x',
      customerId: 'c-acme',
    })
    expect(other.status).toBe(202)
    expect((await s.call('cleo', 'POST', `/api/dispositions/${other.body.id}/undo`)).body.status).toBe(
      'declined',
    )
    const own = await s.call('cleo', 'POST', path, { kind: 'on_account', reason: 'keep it' })
    expect(own.status).toBe(201)
    expect(own.body).toMatchObject({ customerId: 'c-beta', account: '2400', status: 'active' })
  })

  it('control: a small ignore is in force at once, booked to the chart’s ignore account', async () => {
    const tx = await s.pay(62, '100.00', null, 'Tax Office')
    const [exception] = await s.openExceptions(tx)
    const made = await s.call(
      'cleo',
      'POST',
      `/api/exceptions/${encodeURIComponent(exception!.key)}/dispose`,
      {
        kind: 'ignore',
        reason: 'tax refund',
      },
    )
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ status: 'active', account: '8990' })
  })
})

describe('undo and decline', () => {
  it('only the maker or an approver withdraws a pending one; only an approver undoes an approved one', async () => {
    const tx = await s.pay(71, '900.00', null, 'Bank Error')
    const [exception] = await s.openExceptions(tx)
    const path = `/api/exceptions/${encodeURIComponent(exception!.key)}/dispose`
    const made = await s.call('carl', 'POST', path, { kind: 'write_off', reason: 'bank error' })
    expect(made.status).toBe(202)
    const id = made.body.id
    expect((await s.call('cleo', 'POST', `/api/dispositions/${id}/undo`)).status).toBe(403)
    expect((await s.call('cleo', 'POST', `/api/dispositions/${id}/decline`)).status).toBe(403)
    expect((await s.call('vera', 'POST', `/api/dispositions/${id}/undo`)).status).toBe(403)
    expect((await s.call('admin', 'POST', `/api/dispositions/${id}/approve`)).body.error.code).toBe(
      'role_required',
    )
    expect((await s.call('april', 'POST', `/api/dispositions/${id}/approve`)).body.status).toBe('active')
    expect((await s.call('carl', 'POST', `/api/dispositions/${id}/undo`)).status).toBe(403)
    const undone = await s.call('april', 'POST', `/api/dispositions/${id}/undo`)
    expect(undone.body).toMatchObject({ status: 'undone', undoneBy: 'april', approvedBy: 'april' })
    // Control: the maker withdraws their own pending one.
    const again = await s.call('carl', 'POST', path, { kind: 'write_off', reason: 'bank error' })
    const withdrawn = await s.call('carl', 'POST', `/api/dispositions/${again.body.id}/undo`)
    expect(withdrawn.body).toMatchObject({ status: 'declined', declinedBy: 'carl' })
  })
})

describe('the bank’s currency', () => {
  it('is normalised before the threshold: a code that is no ISO 4217 currency waits', async () => {
    const tx = await s.pay(81, '20.00', null, 'Odd Bank', 'XQZ')
    const [exception] = await s.openExceptions(tx)
    const made = await s.call(
      'cleo',
      'POST',
      `/api/exceptions/${encodeURIComponent(exception!.key)}/dispose`,
      {
        kind: 'ignore',
        reason: 'odd',
      },
    )
    expect(made.status).toBe(202)
  })
})

describe('the Approvals list', () => {
  it('shows pending operations of every kind with maker, amount, account and reason; a viewer may read it', async () => {
    const listed = await s.call('vera', 'GET', '/api/approvals')
    expect(listed.status).toBe(200)
    const kinds = new Set(listed.body.data.map((row: { operation: string }) => row.operation))
    for (const kind of ['write_off', 'ignore', 'refund', 'clearing']) expect(kinds).toContain(kind)
    for (const row of listed.body.data) {
      expect(row).toMatchObject({
        madeBy: expect.any(String),
        amount: expect.any(String),
        reason: expect.any(String),
      })
      expect(row.account).toEqual(expect.any(String))
    }
    expect((await s.call('vera', 'POST', '/api/remittance-imports/1/approve')).status).toBe(403)
    expect((await s.call('vera', 'POST', '/api/credit-notes/n-1/decline')).status).toBe(403)
    expect((await s.call('vera', 'PUT', '/api/credit-notes/n-9', { number: 'X' })).status).toBe(403)
    expect((await s.call('carl', 'GET', '/api/approvals?limit=0')).status).toBe(400)
  })
})
