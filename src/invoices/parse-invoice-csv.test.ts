import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { parseInvoiceCsv, type InvoiceCsvResult } from './parse-invoice-csv.js'

const HEADER = 'id,number,amount,currency'
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/invoices/${name}`, import.meta.url))

function errorsOf(result: InvoiceCsvResult) {
  if (result.ok) throw new Error('expected errors')
  return result.errors
}

describe('parseInvoiceCsv on a file of bad rows', () => {
  const badFile = (rows: number) =>
    [HEADER, ...Array.from({ length: rows }, (_, i) => `id_${i},INV-${i},not-money,EUR`)].join('\n')

  it('lists the first bad rows and counts all of them', async () => {
    const result = await parseInvoiceCsv(badFile(250))
    expect(result).toMatchObject({ ok: false, rows: 250, badRows: 250, stoppedAtLine: null })
    expect(errorsOf(result).map((error) => error.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2))
  })

  it('stops reading after the bound', async () => {
    const result = await parseInvoiceCsv(badFile(5000), { maxReportedRows: 10, maxBadRows: 300 })
    expect(result).toMatchObject({ ok: false, rows: 300, badRows: 300, stoppedAtLine: 302 })
    expect(errorsOf(result)).toHaveLength(10)
  })

  it('keeps the first rows by line when syntax errors are reported out of order', async () => {
    const rows = [HEADER, 'a,INV-1,bad,EUR', 'b,INV-2,1,EUR', 'c,"INV-3"x,1,EUR', 'd,INV-4,bad,EUR']
    const result = await parseInvoiceCsv(rows.join('\n'), { maxReportedRows: 2 })
    expect(result).toMatchObject({ badRows: 3 })
    expect(errorsOf(result).map((error) => error.line)).toEqual([2, 4])
  })
})

describe('parseInvoiceCsv', () => {
  it('reads every column, aliases split on | and metadata as JSON', async () => {
    const csv =
      'id,number,amount,currency,customerName,customerAliases,issueDate,dueDate,entityId,accountId,metadata,customerId,paymentReference,discountPercent,discountUntil\n' +
      'inv_1,INV-1,120.50,EUR,"Acme, Ltd",ACME | Acme Trading,2026-01-05,2026-02-04,ent_1,acc_1,"{""po"":""4711""}",cus_1,RF18 5390 0754 7034,2,2026-01-15\n'
    expect(await parseInvoiceCsv(csv)).toEqual({
      ok: true,
      invoices: [
        {
          id: 'inv_1',
          number: 'INV-1',
          amount: '120.50',
          currency: 'EUR',
          customerName: 'Acme, Ltd',
          customerAliases: ['ACME', 'Acme Trading'],
          issueDate: '2026-01-05',
          dueDate: '2026-02-04',
          entityId: 'ent_1',
          accountId: 'acc_1',
          metadata: { po: '4711' },
          customerId: 'cus_1',
          paymentReference: 'RF18 5390 0754 7034',
          earlyPaymentDiscount: { percent: '2', until: '2026-01-15' },
        },
      ],
    })
  })

  it('reads header names without regard to case, spaces, underscores or hyphens, in any order', async () => {
    const result = await parseInvoiceCsv(
      'Currency,AMOUNT,Number,ID,customer_name,Customer Aliases\nEUR,1,N-1,a,Acme,B|C\n',
    )
    expect(result.ok && result.invoices[0]).toMatchObject({
      id: 'a',
      number: 'N-1',
      amount: '1',
      currency: 'EUR',
      customerName: 'Acme',
      customerAliases: ['B', 'C'],
    })
  })

  it('strips a UTF-8 byte order mark and reads CRLF line ends', async () => {
    const result = await parseInvoiceCsv(`\ufeff${HEADER}\r\na,INV-1,1.00,EUR\r\nb,INV-2,2.00,EUR\r\n`)
    expect(result.ok && result.invoices.map((invoice) => invoice.id)).toEqual(['a', 'b'])
  })

  it('keeps quoted separators, quotes and line breaks inside a field, and counts lines as an editor does', async () => {
    const csv = `${HEADER},customerName\r\na,INV-1,1,EUR,"Smith ""Sons""\r\nand Co, Ltd"\r\nb,INV-2,x,EUR,B\r\n`
    const errors = errorsOf(await parseInvoiceCsv(csv))
    expect(errors).toEqual([{ line: 4, id: 'b', reasons: [expect.objectContaining({ field: 'amount' })] }])
    const good = await parseInvoiceCsv(
      `${HEADER},customerName\na,INV-1,1,EUR,"Smith ""Sons""\nand Co, Ltd"\n`,
    )
    expect(good.ok && good.invoices[0]!.customerName).toBe('Smith "Sons"\nand Co, Ltd')
  })

  it('skips blank lines and rows of empty cells but keeps counting their lines', async () => {
    const errors = errorsOf(await parseInvoiceCsv(`${HEADER}\n\na,INV-1,1,EUR\n,,,\n\nb,INV-2,0,EUR\n`))
    expect(errors.map((error) => error.line)).toEqual([6])
  })

  it('reports every bad row of a file with its line, id and every reason, and returns no invoice', async () => {
    const result = await parseInvoiceCsv(fixture('bad-rows.csv'))
    expect(result).toMatchObject({ ok: false, rows: 7 })
    const errors = errorsOf(result)
    expect(
      errors.map((error) => [error.line, error.id, error.reasons.map((reason) => reason.field)]),
    ).toEqual([
      [3, 'bad_amount', ['amount']],
      [4, 'bad_many', ['amount', 'currency', 'issueDate', 'metadata']],
      [6, 'good_1', ['id']],
      [7, null, ['id', 'number', 'amount']],
      [8, null, ['']],
    ])
    expect(errors[2]!.reasons[0]!.message).toBe('"good_1" is also on line 2; an invoice may appear once')
    expect(errors[4]!.reasons[0]!.message).toBe('has 3 fields; the header has 11')
  })

  it('reports a due date before the issue date', async () => {
    const errors = errorsOf(
      await parseInvoiceCsv(`${HEADER},issueDate,dueDate\na,INV-1,1,EUR,2026-03-02,2026-03-01\n`),
    )
    expect(errors[0]!.reasons).toEqual([{ field: 'dueDate', message: 'must not be before issueDate' }])
  })

  it('refuses unknown, repeated and missing columns on line 1', async () => {
    const errors = errorsOf(await parseInvoiceCsv(fixture('bad-header.csv')))
    expect(errors).toHaveLength(1)
    expect(errors[0]!.line).toBe(1)
    expect(errors[0]!.reasons.map((reason) => [reason.field, reason.message.slice(0, 24)])).toEqual([
      ['Invoice Number', 'is not a column of an in'],
      ['Amount', 'repeats the column amoun'],
      ['Customer', 'is not a column of an in'],
      ['number', 'column is missing from t'],
      ['currency', 'column is missing from t'],
    ])
  })

  it('reports an unclosed quote at the line after the last complete row', async () => {
    const errors = errorsOf(await parseInvoiceCsv(fixture('unclosed-quote.csv')))
    expect(errors).toEqual([
      {
        line: 2,
        id: null,
        reasons: [
          { field: '', message: 'a quoted field opened on this line or further down is never closed' },
        ],
      },
    ])
  })

  it('reports a stray quote in an unquoted field and goes on with the next rows', async () => {
    const errors = errorsOf(await parseInvoiceCsv(`${HEADER}\na,IN"V,1,EUR\nb,INV-2,0,EUR\n`))
    expect(errors.map((error) => [error.line, error.reasons[0]!.message.slice(0, 30)])).toEqual([
      [2, 'a quote inside an unquoted fie'],
      [3, 'must be greater than 0'],
    ])
  })

  it('reports a closing quote followed by text', async () => {
    const errors = errorsOf(await parseInvoiceCsv(`${HEADER}\na,"INV"1,1,EUR\n`))
    expect(errors[0]).toMatchObject({
      line: 2,
      reasons: [{ message: expect.stringMatching(/closing quote/) }],
    })
  })

  it('refuses an empty file', async () => {
    expect(errorsOf(await parseInvoiceCsv(''))).toEqual([
      {
        line: 1,
        id: null,
        reasons: [{ field: '', message: 'the file is empty; its first line must name the columns' }],
      },
    ])
  })

  it('accepts a header without rows as an empty import', async () => {
    expect(await parseInvoiceCsv(`${HEADER}\n`)).toEqual({ ok: true, invoices: [] })
  })

  it('reads a stream split anywhere, CRLF and multi-byte characters across chunks, and reports bytes read', async () => {
    const text = `${HEADER},customerName\r\na,INV-1,1,EUR,Société Générale\r\nb,INV-2,2,EUR,Ünïcode\r\n`
    const bytes = Buffer.from(text)
    const chunks = [...bytes].map((byte) => Buffer.from([byte]))
    const seen: number[] = []
    const result = await parseInvoiceCsv(Readable.from(chunks), { onBytes: (read) => seen.push(read) })
    expect(result.ok && result.invoices.map((invoice) => invoice.customerName)).toEqual([
      'Société Générale',
      'Ünïcode',
    ])
    expect(seen.at(-1)).toBe(bytes.length)
  })

  it('reads the demo file: 60 invoices in several currencies', async () => {
    const result = await parseInvoiceCsv(fixture('demo.csv'))
    expect(result.ok && result.invoices).toHaveLength(60)
    expect(new Set(result.ok ? result.invoices.map((invoice) => invoice.currency) : [])).toEqual(
      new Set(['USD', 'EUR', 'GBP', 'CAD']),
    )
  })
})
