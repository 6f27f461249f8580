import { randomBytes } from 'node:crypto'
import { Decimal } from 'decimal.js'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { testIo } from '../cli/test-io.js'
import { journalEntries, journalTotals, renderJournal, type JournalEntry } from '../../src/journal/index.js'
import { InvoiceIndex, matchPayments, transactionPhase } from '../../src/matcher/index.js'
import {
  createDatabase,
  type JournalAllocationRow,
  type JournalDispositionRow,
} from '../../src/store/index.js'
import { loadCorpus } from '../support/matching-corpus.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const HOLDING = [
  'unmatched_payment',
  'overpayment',
  'currency_mismatch',
  'ambiguous_reference',
  'suggested_match',
]

function expectBalanced(entries: readonly JournalEntry[]): void {
  for (const entry of entries) {
    const debit = entry.lines.reduce((sum, line) => sum.plus(line.debit), new Decimal(0))
    const credit = entry.lines.reduce((sum, line) => sum.plus(line.credit), new Decimal(0))
    expect(debit.toFixed(), `entry ${entry.id}`).toBe(credit.toFixed())
    expect(debit.gt(0), `entry ${entry.id} books nothing`).toBe(true)
  }
  for (const [currency, total] of Object.entries(journalTotals(entries))) {
    expect(total.debit, currency).toBe(total.credit)
  }
}

describe('the journal over the corpus', () => {
  it('balances per entry and in total, and books each settled payment whole once every exception is disposed of', () => {
    const corpus = loadCorpus()
    const at = new Date('2026-03-02T10:00:00Z')
    const later = new Date('2026-03-03T10:00:00Z')
    const period = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') }
    let booked = 0
    for (const entry of corpus.cases) {
      const invoices = [...corpus.invoices, ...(entry.invoices ?? [])]
      const result = matchPayments({
        index: new InvoiceIndex(invoices, corpus.customers),
        invoices,
        transactions: [...(entry.prior ?? []), entry.payment],
      })
      const payment = entry.payment
      if (transactionPhase(payment) !== 'settled' || new Decimal(String(payment.amount)).lte(0)) continue
      const reference = { account_id: payment.accountId, payment_reference: payment.paymentReference ?? null }
      const allocations: JournalAllocationRow[] = result.allocations
        .filter((allocation) => allocation.transactionId === payment.id && allocation.settled)
        .map((allocation, index) => ({
          id: String(index + 1),
          transaction_id: payment.id,
          invoice_id: allocation.invoiceId,
          invoice_number: invoices.find((invoice) => invoice.id === allocation.invoiceId)?.number ?? null,
          amount: allocation.amount,
          write_off: allocation.writeOff,
          write_off_reason: allocation.writeOffReason,
          write_off_account: allocation.writeOffAccount,
          rule: allocation.rule,
          created_at: at,
          // Every other allocation is reversed the next day: the reversal must balance too.
          reversed_at: index % 2 === 1 ? later : null,
          currency: payment.currency,
          counterparty_name: payment.counterpartyName ?? null,
          posted_date: payment.postedDate ?? null,
          customer_name: null,
          ...reference,
        }))
      const dispositions: JournalDispositionRow[] = result.exceptions
        .filter((exception) => exception.transactionId === payment.id && HOLDING.includes(exception.type))
        .map((exception, index) => ({
          id: String(index + 1),
          transaction_id: payment.id,
          invoice_id: null,
          invoice_number: null,
          note: null,
          kind: 'clearing',
          amount: exception.amount ?? '0',
          currency: payment.currency,
          account: 'Suspense',
          customer_id: null,
          reason: `=HYPERLINK("x") ${exception.type}`,
          in_force_at: at,
          undone_at: null,
          // A payer's name a spreadsheet would run as a formula.
          counterparty_name: '@SUM(A1:A9)',
          posted_date: payment.postedDate ?? null,
          ...reference,
        }))
      const opening = journalEntries({ allocations, dispositions }, { from: at, to: later })
      if (opening.length === 0) continue
      booked++
      expectBalanced(journalEntries({ allocations, dispositions }, period))
      const bank = opening
        .flatMap((item) => item.lines)
        .filter((line) => line.account === 'Bank')
        .reduce((sum, line) => sum.plus(line.debit), new Decimal(0))
      expect(bank.toFixed(), `case ${entry.id}`).toBe(new Decimal(String(payment.amount)).toFixed())
      for (const format of ['csv', 'qbo-csv', 'xero-csv'] as const) {
        const cells = renderJournal(opening, format, 'Bank').split(/,|\r\n/)
        expect(cells.filter((cell) => /^"?[=+@]/.test(cell))).toEqual([])
      }
    }
    expect(booked).toBeGreaterThanOrEqual(60)
  })
})

const schemas: string[] = []
afterAll(async () => {
  await dropSidecarSchemas(...schemas)
})

describe('the journal over the demo story', () => {
  it('balances per entry and in total, from the CLI, and its exports hold one row per bank line', async () => {
    const schema = `test_journal_${randomBytes(4).toString('hex')}`
    schemas.push(schema)
    const env = {
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      LOG_LEVEL: 'error',
    }
    expect(await runCli(['demo'], testIo(env).io)).toBe(0)
    // A person writes off the rest of one invoice the story left open, and of another, then undoes that one.
    const store = createDatabase({ connectionString: TEST_DATABASE_URL, schema })
    const open = await store.db
      .selectFrom('invoice_state')
      .select('invoice_id')
      .where('status', 'in', ['partially_paid', 'open'])
      .orderBy('invoice_id')
      .limit(2)
      .execute()
    await store.pool.end()
    expect(open).toHaveLength(2)
    for (const { invoice_id: id } of open) {
      const written = testIo(env)
      expect(
        await runCli(['invoices', 'write-off', id, '--reason', 'bad_debt'], written.io),
        written.err(),
      ).toBe(0)
    }
    const undo = testIo(env)
    expect(await runCli(['dispositions', 'list', '--invoice', open[1]!.invoice_id, '--json'], undo.io)).toBe(
      0,
    )
    const { id: undoId } = JSON.parse(undo.out()) as { id: string }
    expect(await runCli(['dispositions', 'undo', undoId], testIo(env).io)).toBe(0)
    const json = testIo(env)
    expect(await runCli(['journal', '--from', '2000-01-01', '--to', '2100-12-31'], json.io)).toBe(0)
    const { entries } = JSON.parse(json.out()) as { entries: JournalEntry[] }
    expect(entries.filter((entry) => entry.kind === 'settlement').length).toBeGreaterThanOrEqual(52)
    expect(
      entries.filter((entry) => entry.kind.startsWith('invoice_write_off')).map((entry) => entry.kind),
    ).toEqual(['invoice_write_off', 'invoice_write_off', 'invoice_write_off_undone'])
    expectBalanced(entries)
    const bankLines = entries.filter((entry) => entry.lines.some((line) => line.account === 'Bank')).length
    // An import file holds one currency: the story's four are refused together, and split add up.
    const days = ['journal', '--from', '2000-01-01', '--to', '2100-12-31', '--format', 'qbo-csv']
    const mixed = testIo(env)
    expect(await runCli(days, mixed.io)).toBe(2)
    expect(mixed.err()).toContain('holds one currency')
    let rows = 0
    for (const currency of new Set(entries.map((entry) => entry.currency))) {
      const qbo = testIo(env)
      expect(await runCli([...days, '--currency', currency], qbo.io)).toBe(0)
      expect(qbo.out().split('\r\n')[0]).toBe('Date,Description,Amount')
      rows += qbo.out().trim().split('\r\n').length - 1
    }
    expect(rows).toBe(bankLines)
    const bad = testIo(env)
    expect(await runCli(['journal', '--from', '2026-02-30', '--to', '2026-01-01'], bad.io)).toBe(2)
    expect(bad.err()).toContain('--from must be a date YYYY-MM-DD')
  }, 120_000)
})
