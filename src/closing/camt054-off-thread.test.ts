import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseCamt054OffThread } from './camt054-off-thread.js'
import { parseCamt054 } from './camt054-parse.js'

const fixture = readFileSync(new URL('../../fixtures/camt054/psp-payout.xml', import.meta.url), 'utf8')

describe('parseCamt054OffThread', () => {
  it('gives the entries the parser gives, charges as decimals', async () => {
    const entries = await parseCamt054OffThread(fixture)
    expect(entries).toEqual(parseCamt054(fixture))
    expect(entries[0]!.transactions[0]!.charges.constructor.name).toBe('Decimal')
  })

  it('passes the parser’s refusal on as the same refusal, in our words only', async () => {
    const broken = '<Document><BkToCstmrDbtCdtNtfctn><Ntfctn></Ntry></Document>'
    const error = await parseCamt054OffThread(broken).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'invalid', code: 'invalid_camt054' })
    // fast-xml-parser's own message ("Expected closing tag 'Ntfctn' (opened in line 1, col 34) instead of closing tag 'Ntry'.")
    // names the document's tags: ours names the line and what kind of fault it is.
    expect(JSON.stringify(error)).not.toMatch(/Expected closing tag|instead of|opened in/)
    expect((error as Error).message).toContain('not well-formed XML')
  })

  it('stops a parse past its time budget: the worker is terminated and the refusal names why', async () => {
    const big = fixture.replace(/<Ntry>[\s\S]*<\/Ntry>/, (entry) => entry.repeat(200))
    const error = await parseCamt054OffThread(big, { budgetMs: 1 }).catch((e: unknown) => e)
    expect(error).toMatchObject({
      kind: 'unprocessable',
      code: 'camt054_too_slow',
      details: [{ path: 'body', message: expect.stringContaining('took more than 1 ms to parse') }],
    })
    // Control: the same document within the default budget.
    expect(await parseCamt054OffThread(big)).toHaveLength(parseCamt054(big).length)
  })

  it('refuses an attribute bomb under the byte cap before parsing it', async () => {
    const bomb = `<Document><BkToCstmrDbtCdtNtfctn>${'<a b="1" c="2"/>'.repeat(30_000)}</BkToCstmrDbtCdtNtfctn></Document>`
    await expect(parseCamt054OffThread(bomb)).rejects.toMatchObject({ code: 'camt054_too_complex' })
  })
})
