import { describe, expect, it } from 'vitest'
import type { JournalEntry } from './journal-entries.js'
import { renderJournal } from './journal-formats.js'

/** A settlement booked on `at` for a payment the bank posted on `postedDate`, with a write-off beside it. */
function settlement(
  id: string,
  amount: string,
  currency: string,
  extra: Partial<JournalEntry> = {},
): JournalEntry {
  return {
    id,
    at: '2026-03-05T09:30:00.000Z',
    kind: 'settlement',
    currency,
    transactionId: `tx-${id}`,
    bankAccountId: 'acc-1',
    paymentReference: `REF ${id}`,
    payer: 'Müller & Söhne GmbH',
    postedDate: '2026-03-02',
    customer: 'Müller und Söhne',
    invoiceId: `inv-${id}`,
    invoiceNumber: `RE-2026/${id}`,
    memo: 'payment applied (reference)',
    lines: [
      { account: 'Bank', debit: amount, credit: '0' },
      { account: 'Write-offs', debit: '1.5', credit: '0' },
      { account: 'Accounts Receivable', debit: '0', credit: `${Number(amount) + 1.5}` },
    ],
    ...extra,
  }
}

const rows = (file: string) => file.trim().split('\r\n')

describe('bank-line uploads', () => {
  it("qbo-csv: Date (MM/DD/YYYY, the bank's posting date), Description, Amount in the currency's decimals", () => {
    const file = rows(renderJournal([settlement('1', '1500', 'JPY')], 'qbo-csv', 'Bank'))
    expect(file[0]).toBe('Date,Description,Amount')
    expect(file[1]!.split(',')[0]).toBe('03/02/2026')
    expect(file[1]!.split(',').at(-1)).toBe('1500')
  })

  it('xero-csv: Date (YYYY-MM-DD, posting date), Amount (EUR with 2 decimals), Payee, Description, Reference', () => {
    const file = rows(renderJournal([settlement('1', '12.5', 'EUR')], 'xero-csv', 'Bank'))
    expect(file[0]).toBe('Date,Amount,Payee,Description,Reference')
    expect(file[1]!.startsWith('2026-03-02,12.50,Müller & Söhne GmbH,')).toBe(true)
    expect(file[1]!.endsWith(',RE-2026/1')).toBe(true)
  })

  it('refuses entries of several currencies in one import file, naming them; json and csv carry them per row', () => {
    const mixed = [settlement('1', '10', 'EUR'), settlement('2', '10', 'USD')]
    for (const format of ['qbo-csv', 'xero-csv', 'qbo-payments', 'xero-payments'] as const) {
      expect(() => renderJournal(mixed, format, 'Bank')).toThrow(
        /holds one currency; the days asked hold EUR, USD/,
      )
    }
    expect(rows(renderJournal(mixed, 'csv', 'Bank'))).toHaveLength(7)
  })
})

describe('payment records', () => {
  it('qbo-payments: the Receive Payment columns in order, TxnDate MM/DD/YYYY, field limits, settlements only', () => {
    const long = settlement('1', '1500', 'JPY', {
      invoiceNumber: 'INV-0123456789-0123456789',
      paymentReference: 'X'.repeat(40),
    })
    const credit = settlement('2', '5', 'JPY', { kind: 'credit_applied' })
    const file = rows(renderJournal([long, credit], 'qbo-payments', 'Bank', { deposit: 'Checking' }))
    expect(file[0]).toBe(
      'RefNumber,TxnDate,PaymentRefNumber,Customer,DepositToAccount,InvoiceApplyTo,LineAmount,PrivateNote,Currency',
    )
    expect(file).toHaveLength(2)
    const cells = file[1]!.split(',')
    expect(cells.slice(0, 7)).toEqual([
      '1',
      '03/02/2026',
      'X'.repeat(31),
      'Müller und Söhne',
      'Checking',
      'INV-0123456789-012345',
      '1500',
    ])
    expect(cells.at(-1)).toBe('JPY')
  })

  it('xero-payments: ContactName, InvoiceNumber, Date (YYYY-MM-DD), Amount, AccountCode, Reference, CurrencyCode', () => {
    const file = rows(
      renderJournal([settlement('1', '20.125', 'KWD')], 'xero-payments', 'Bank', { deposit: '090' }),
    )
    expect(file[0]).toBe('ContactName,InvoiceNumber,Date,Amount,AccountCode,Reference,CurrencyCode')
    expect(file[1]).toBe('Müller und Söhne,RE-2026/1,2026-03-02,20.125,090,REF 1,KWD')
  })
})

describe('DATEV Buchungsstapel', () => {
  const datev = {
    consultant: 1001,
    client: 42,
    fiscalYearStart: '2026-01-01',
    accountNumbers: { Bank: '1200', 'Accounts Receivable': '1400', 'Write-offs': '2400' },
    period: { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') },
    created: new Date('2026-04-01T08:09:10.123Z'),
  }

  it('writes the EXTF header (700, category 21, Buchungsstapel, version 13) with its 31 fields', () => {
    const [header] = rows(renderJournal([settlement('1', '10', 'EUR')], 'datev', 'Bank', { datev }))
    const fields = header!.split(';')
    expect(fields).toHaveLength(31)
    expect(fields.slice(0, 6)).toEqual(['"EXTF"', '700', '21', '"Buchungsstapel"', '13', '20260401080910123'])
    // Beraternummer, Mandantennummer, WJ-Beginn, Sachkontenlänge, Datum vom, Datum bis, …, WKZ
    expect(fields.slice(10, 16)).toEqual(['1001', '42', '20260101', '4', '20260301', '20260331'])
    expect(fields[21]).toBe('"EUR"')
  })

  it('writes the column names in order, then one booking per debit line: decimal comma, S, Konto and Gegenkonto', () => {
    const [, columns, bank, writeOff] = rows(
      renderJournal([settlement('1', '1234.5', 'EUR')], 'datev', 'Bank', { datev }),
    )
    expect(columns!.split(';').slice(0, 14)).toEqual([
      '"Umsatz (ohne Soll/Haben-Kz)"',
      '"Soll/Haben-Kennzeichen"',
      '"WKZ Umsatz"',
      '"Kurs"',
      '"Basis-Umsatz"',
      '"WKZ Basis-Umsatz"',
      '"Konto"',
      '"Gegenkonto (ohne BU-Schlüssel)"',
      '"BU-Schlüssel"',
      '"Belegdatum"',
      '"Belegfeld 1"',
      '"Belegfeld 2"',
      '"Skonto"',
      '"Buchungstext"',
    ])
    const cells = bank!.split(';')
    expect(cells.slice(0, 11)).toEqual([
      '1234,50',
      '"S"',
      '"EUR"',
      '',
      '',
      '',
      '1200',
      '1400',
      '',
      '0203',
      '"RE-2026/1"',
    ])
    expect(cells[13]!.length).toBeLessThanOrEqual(62)
    expect(writeOff!.split(';').slice(0, 8)).toEqual(['1,50', '"S"', '"EUR"', '', '', '', '2400', '1400'])
  })

  it('books a reversal as H against the bank, JPY without decimals', () => {
    const reversal = settlement('1', '1500', 'JPY', {
      kind: 'settlement_reversed',
      lines: [
        { account: 'Bank', debit: '0', credit: '1500' },
        { account: 'Accounts Receivable', debit: '1500', credit: '0' },
      ],
    })
    const [, , row] = rows(renderJournal([reversal], 'datev', 'Bank', { datev }))
    expect(row!.split(';').slice(0, 8)).toEqual(['1500', '"S"', '"JPY"', '', '', '', '1400', '1200'])
  })

  it('refuses an account with no DATEV number, and days outside the fiscal year', () => {
    const entry = settlement('1', '10', 'EUR', {
      lines: [
        { account: 'Bank', debit: '10', credit: '0' },
        { account: 'Suspense', debit: '0', credit: '10' },
      ],
    })
    expect(() => renderJournal([entry], 'datev', 'Bank', { datev })).toThrow(
      /No DATEV account number for "Suspense"/,
    )
    const late = settlement('2', '10', 'EUR', { postedDate: '2025-12-31' })
    expect(() => renderJournal([late], 'datev', 'Bank', { datev })).toThrow(/one fiscal year/)
  })
})
