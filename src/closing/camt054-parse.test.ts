import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ClosingRequestError } from './closing-errors.js'
import { looksLikeXml, parseCamt054 } from './camt054-parse.js'

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/camt054/${name}`, import.meta.url), 'utf8')

/** A camt.054 document of `version` with the given Ntry elements. */
const doc = (entries: string, version = '08') =>
  `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.${version}">` +
  `<BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>M</MsgId></GrpHdr><Ntfctn><Id>N</Id>${entries}</Ntfctn>` +
  `</BkToCstmrDbtCdtNtfctn></Document>`

function refusal(xml: string): { kind: string; code: string; details: unknown } {
  try {
    parseCamt054(xml)
  } catch (error) {
    const { kind, code, details } = error as { kind: string; code: string; details: unknown }
    return { kind, code, details }
  }
  throw new Error('parsed')
}

describe('parseCamt054', () => {
  it('reads a .08 SEPA batch: entry, charges, references, free text and debtors', () => {
    const [entry, ...rest] = parseCamt054(fixture('sepa-batch.xml'))
    expect(rest).toEqual([])
    expect(entry).toMatchObject({
      index: 1,
      entryRef: 'BATCH-0302-01',
      servicerRef: '2026030200123',
      amount: '1992.50',
      currency: 'EUR',
      credit: true,
      bookingDate: '2026-03-02',
    })
    expect(entry!.charges?.toFixed()).toBe('7.5')
    expect(
      entry!.transactions.map((tx) => [tx.amount, tx.creditorReferences, tx.unstructured, tx.debtor]),
    ).toEqual([
      ['500.00', ['RF93INV7001'], [], 'Acme Retail BV'],
      ['300.00', [], ['Rechnung INV-7002 vom 12.02.2026', 'Danke'], 'Bäckerei Müller & Söhne'],
      ['1200.00', ['RF56 5390 0754 70'], [], 'Kleinmann Logistik AG'],
    ])
  })

  it('reads a .02 payout: the instructed amount per payment, charges per payment, referred document numbers', () => {
    const [payout, later] = parseCamt054(fixture('psp-payout.xml'))
    expect(payout!.charges).toBeNull()
    expect(
      payout!.transactions.map((tx) => [tx.amount, tx.charges.toFixed(), tx.documentNumbers, tx.debtor]),
    ).toEqual([
      ['600.00', '3.7', [], 'Marta Ruiz'],
      ['450.00', '2.8', ['INV-8002'], 'Tom Becker'],
      ['400.00', '2.2', [], 'Ines Dupont'],
    ])
    // Without an instructed amount, the booked one.
    expect(later).toMatchObject({ index: 2, entryRef: 'po_1QgA19Zr', valueDate: null })
    expect(later!.transactions[0]).toMatchObject({ amount: '250.00', unstructured: ['Invoice INV-8010'] })
  })

  it('matches on local names: a prefixed namespace reads the same', () => {
    const xml =
      '<c:Document xmlns:c="urn:iso:std:iso:20022:tech:xsd:camt.054.001.04"><c:BkToCstmrDbtCdtNtfctn><c:Ntfctn>' +
      '<c:Ntry><c:Amt Ccy="CHF">10.00</c:Amt><c:CdtDbtInd>CRDT</c:CdtDbtInd><c:BookgDt><c:DtTm>2026-03-05T10:00:00</c:DtTm></c:BookgDt>' +
      '<c:NtryDtls><c:TxDtls><c:Amt Ccy="CHF">10.00</c:Amt><c:RmtInf><c:Strd><c:CdtrRefInf><c:Ref>210000000003139471430009017</c:Ref>' +
      '</c:CdtrRefInf></c:Strd></c:RmtInf></c:TxDtls></c:NtryDtls></c:Ntry></c:Ntfctn></c:BkToCstmrDbtCdtNtfctn></c:Document>'
    const [entry] = parseCamt054(xml)
    expect(entry).toMatchObject({ currency: 'CHF', bookingDate: '2026-03-05' })
    expect(entry!.transactions[0]!.creditorReferences).toEqual(['210000000003139471430009017'])
  })

  it('counts only charges included in the amount, and a charge credited back against them', () => {
    const [entry] = parseCamt054(
      doc(
        '<Ntry><Amt Ccy="EUR">95.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Chrgs>' +
          '<Rcrd><Amt Ccy="EUR">6.00</Amt><ChrgInclInd>true</ChrgInclInd></Rcrd>' +
          '<Rcrd><Amt Ccy="EUR">2.00</Amt><ChrgInclInd>false</ChrgInclInd></Rcrd>' +
          '<Rcrd><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Rcrd></Chrgs></Ntry>',
      ),
    )
    expect(entry!.charges?.toFixed()).toBe('5')
  })

  it('marks debits and reversals as no credit', () => {
    const entries = parseCamt054(
      doc(
        '<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd></Ntry>' +
          '<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><RvslInd>true</RvslInd></Ntry>',
      ),
    )
    expect(entries.map((entry) => entry.credit)).toEqual([false, false])
  })

  it('refuses a DOCTYPE before parsing: no external entity, no billion laughs', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${doc('<Ntry><Amt Ccy="EUR">&x;</Amt></Ntry>').replace('<?xml version="1.0"?>', '')}`
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><Document>&lol2;</Document>'
    for (const xml of [xxe, laughs]) {
      expect(refusal(xml)).toMatchObject({
        kind: 'invalid',
        code: 'invalid_camt054',
        details: [{ path: 'body', message: expect.stringContaining('DOCTYPE') }],
      })
    }
  })

  it('names bad XML, another message type, a missing or bad amount', () => {
    expect(refusal('<Document><BkToCstmrDbtCdtNtfctn></Document>')).toMatchObject({
      kind: 'invalid',
      details: [{ path: 'line.1', message: expect.stringContaining('not well-formed') }],
    })
    expect(refusal('<Document><BkToCstmrStmt><Stmt/></BkToCstmrStmt></Document>')).toMatchObject({
      details: [{ message: expect.stringContaining('camt.053 statement') }],
    })
    expect(refusal('<Document><CstmrCdtTrfInitn/></Document>')).toMatchObject({
      details: [{ message: expect.stringContaining('pain.001') }],
    })
    expect(refusal(doc('<Ntry><CdtDbtInd>CRDT</CdtDbtInd></Ntry>'))).toMatchObject({
      details: [{ path: 'Ntfctn[1].Ntry[1].Amt', message: 'is missing' }],
    })
    expect(refusal(doc('<Ntry><Amt Ccy="EUR">1,50</Amt><CdtDbtInd>CRDT</CdtDbtInd></Ntry>'))).toMatchObject({
      details: [{ path: 'Ntfctn[1].Ntry[1].Amt', message: expect.stringContaining('"1,50"') }],
    })
    expect(
      refusal(
        doc(
          '<Ntry><Amt Ccy="EUR">1.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><NtryDtls><TxDtls><Refs/></TxDtls></NtryDtls></Ntry>',
        ),
      ),
    ).toMatchObject({
      details: [
        { path: 'Ntfctn[1].Ntry[1].NtryDtls.TxDtls[1]', message: expect.stringContaining('no amount') },
      ],
    })
    expect(refusal(doc(''))).toMatchObject({ details: [{ message: expect.stringContaining('no entry') }] })
  })

  it('decodes character references once, and never to U+0000', () => {
    const [entry] = parseCamt054(
      doc(
        '<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><NtryDtls><TxDtls><Amt Ccy="EUR">1.00</Amt>' +
          '<RmtInf><Ustrd>a &amp;#65; &#x42; &#0; &lt;</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>',
      ),
    )
    expect(entry!.transactions[0]!.unstructured).toEqual(['a &#65; B &#0; <'])
  })

  it('tells XML from CSV by its first character', () => {
    expect(looksLikeXml('\uFEFF  <?xml version="1.0"?>')).toBe(true)
    expect(looksLikeXml('invoiceNumber,amount\n')).toBe(false)
  })

  it('answers any cut or damaged document with 400 invalid_camt054 or its entries, never another error', () => {
    const xml = fixture('psp-payout.xml')
    fc.assert(
      fc.property(fc.nat(xml.length), fc.nat(xml.length), fc.string({ maxLength: 3 }), (cut, at, insert) => {
        for (const damaged of [xml.slice(0, cut), xml.slice(0, at) + insert + xml.slice(at + 1)]) {
          try {
            parseCamt054(damaged)
          } catch (error) {
            expect(error).toBeInstanceOf(ClosingRequestError)
            expect(error).toMatchObject({ kind: 'invalid', code: 'invalid_camt054' })
          }
        }
      }),
      { seed: 1054, numRuns: 300 },
    )
    expect(refusal('<Document>text</Document>')).toMatchObject({
      details: [{ message: 'is empty, not a camt.054 notification (Document/BkToCstmrDbtCdtNtfctn)' }],
    })
  })
})
