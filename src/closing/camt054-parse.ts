import { Decimal } from 'decimal.js'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { ClosingRequestError } from './closing-errors.js'

/** One underlying payment of a camt.054 entry (`NtryDtls/TxDtls`). */
export type Camt054Transaction = {
  /** 1-based, counted over the entry's TxDtls. */
  line: number
  /** What the payer sent for it: `AmtDtls/InstdAmt` in the entry's currency, else `Amt` (`AmtDtls/TxAmt` in .02). */
  amount: string
  currency: string
  credit: boolean
  endToEndId: string | null
  /** `RmtInf/Strd/CdtrRefInf/Ref`: RF, QR, OGM, KID or an issued payment reference. */
  creditorReferences: string[]
  /** `RmtInf/Strd/RfrdDocInf/Nb`: the invoice numbers the payer stated. */
  documentNumbers: string[]
  /**
   * Each `RmtInf/Strd` with what it names and the amount it says is remitted for it (`RfrdDocAmt/RmtdAmt`):
   * one payment may pay several invoices.
   */
  documents: Array<{ reference: string | null; number: string | null; remitted: string | null }>
  /** `RmtInf/Ustrd`, in order. */
  unstructured: string[]
  debtor: string | null
  /** Charges on this payment included in the entry's amount. */
  charges: Decimal
}

/** One bank line of a camt.054 notification (`Ntfctn/Ntry`). */
export type Camt054Entry = {
  /** 1-based, counted over the document. */
  index: number
  entryRef: string | null
  servicerRef: string | null
  amount: string
  currency: string
  /** CRDT and not a reversal. */
  credit: boolean
  bookingDate: string | null
  valueDate: string | null
  /** Entry-level charges included in its amount (`Ntry/Chrgs`), null when the entry states none. */
  charges: Decimal | null
  transactions: Camt054Transaction[]
}

type Node = Record<string, unknown>

const MESSAGE_NAMES: Record<string, string> = {
  BkToCstmrStmt: 'a camt.053 statement',
  BkToCstmrAcctRpt: 'a camt.052 account report',
  CstmrCdtTrfInitn: 'a pain.001 payment initiation',
  CstmrDrctDbtInitn: 'a pain.008 direct debit initiation',
  CstmrPmtStsRpt: 'a pain.002 payment status report',
}

/** fast-xml-parser's validator codes, in our words: its messages quote the document. */
const FAULTS: Record<string, string> = {
  InvalidXml: 'the markup is broken',
  InvalidTag: 'a tag is malformed, unclosed or closed out of order',
  InvalidAttr: 'an attribute is malformed or repeated',
  InvalidChar: 'a character is not allowed there',
}

const AMOUNT = /^\d{1,18}(\.\d{1,5})?$/
const CURRENCY = /^[A-Z]{3}$/

const parser = new XMLParser({
  // Versions .001.02 to .001.08 differ in namespace only where this module reads: match local names.
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Amounts stay the decimal strings they are written as.
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  // The parser expands no entity at all; text() decodes XML's five and character references in one pass.
  processEntities: false,
})

function invalid(path: string, message: string): ClosingRequestError {
  return new ClosingRequestError('invalid', 'invalid_camt054', `${path}: ${message}. Nothing was applied.`, [
    { path, message },
  ])
}

function list(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return []
  return Array.isArray(value) ? value : [value]
}

function child(node: unknown, name: string): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined
  const value = (node as Node)[name]
  return Array.isArray(value) ? value[0] : value
}

function at(node: unknown, ...names: string[]): unknown {
  return names.reduce<unknown>((current, name) => child(current, name), node)
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** XML's predefined entities and character references, decoded once (`&amp;#65;` stays `&#65;`). */
function decodeEntities(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g, (whole, name: string) => {
    if (!name.startsWith('#')) return NAMED[name]!
    const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10)
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : whole
  })
}

/** An element's text: a plain value, or `#text` beside attributes. */
function text(node: unknown): string | null {
  const raw = typeof node === 'string' ? node : child(node, '#text')
  return typeof raw === 'string' && raw.length > 0 ? decodeEntities(raw) : null
}

function textAt(node: unknown, ...names: string[]): string | null {
  return text(at(node, ...names))
}

/** An `Amt Ccy="…"` element, checked; undefined when absent. */
function amountOf(node: unknown, path: string): { amount: string; currency: string } | undefined {
  if (node === undefined) return undefined
  const amount = text(node)
  const currency = typeof child(node, '@Ccy') === 'string' ? (child(node, '@Ccy') as string) : ''
  if (amount === null || !AMOUNT.test(amount)) {
    throw invalid(path, `must be a decimal amount like 1234.50, found "${amount ?? ''}"`)
  }
  if (!CURRENCY.test(currency)) throw invalid(`${path}@Ccy`, 'must be a three-letter currency code')
  return { amount, currency }
}

/** A `BookgDt`/`ValDt` choice: `Dt`, or the date of `DtTm`. */
function dateOf(node: unknown): string | null {
  const date = textAt(node, 'Dt') ?? textAt(node, 'DtTm')
  return date && /^\d{4}-\d{2}-\d{2}/.test(date) ? date.slice(0, 10) : null
}

/**
 * The charges a `Chrgs` element says are included in the amount: .02 lists `Chrgs` with `Amt`; .03 and later
 * have `Chrgs/Rcrd` (a record with `ChrgInclInd` false was debited separately) or only `TtlChrgsAndTaxAmt`.
 * A record credited back (`CdtDbtInd` CRDT) counts against the others.
 */
function chargesOf(node: unknown, path: string): Decimal | null {
  const blocks = list(node)
  if (blocks.length === 0) return null
  let total = new Decimal(0)
  for (const block of blocks) {
    const records = typeof block === 'object' && block !== null ? list((block as Node).Rcrd) : []
    const items = records.length > 0 ? records : [block]
    for (const [index, record] of items.entries()) {
      if (textAt(record, 'ChrgInclInd') === 'false') continue
      const where = records.length > 0 ? `${path}.Rcrd[${index + 1}].Amt` : `${path}.Amt`
      const amount =
        amountOf(child(record, 'Amt'), where) ??
        (records.length === 0
          ? amountOf(child(block, 'TtlChrgsAndTaxAmt'), `${path}.TtlChrgsAndTaxAmt`)
          : undefined)
      if (!amount) continue
      total = textAt(record, 'CdtDbtInd') === 'CRDT' ? total.minus(amount.amount) : total.plus(amount.amount)
    }
  }
  return total
}

function transactionOf(node: unknown, line: number, entryCurrency: string, path: string): Camt054Transaction {
  const instructed = amountOf(at(node, 'AmtDtls', 'InstdAmt', 'Amt'), `${path}.AmtDtls.InstdAmt.Amt`)
  const booked =
    amountOf(child(node, 'Amt'), `${path}.Amt`) ??
    amountOf(at(node, 'AmtDtls', 'TxAmt', 'Amt'), `${path}.AmtDtls.TxAmt.Amt`)
  const amount = instructed?.currency === entryCurrency ? instructed : (booked ?? instructed)
  if (!amount) throw invalid(path, 'has no amount (Amt or AmtDtls)')
  const remittance = list((node as Node).RmtInf)
  const structured = remittance.flatMap((info) => list((info as Node).Strd))
  const debtor = at(node, 'RltdPties', 'Dbtr')
  return {
    line,
    amount: amount.amount,
    currency: amount.currency,
    credit: (textAt(node, 'CdtDbtInd') ?? 'CRDT') === 'CRDT',
    endToEndId: textAt(node, 'Refs', 'EndToEndId'),
    creditorReferences: structured.flatMap((strd) => textAt(strd, 'CdtrRefInf', 'Ref') ?? []),
    documentNumbers: structured.flatMap((strd) =>
      list((strd as Node).RfrdDocInf).flatMap((doc) => textAt(doc, 'Nb') ?? []),
    ),
    documents: structured.map((strd, n) => {
      const remitted = amountOf(
        at(strd, 'RfrdDocAmt', 'RmtdAmt'),
        `${path}.RmtInf.Strd[${n + 1}].RfrdDocAmt.RmtdAmt`,
      )
      return {
        reference: textAt(strd, 'CdtrRefInf', 'Ref'),
        number: list((strd as Node).RfrdDocInf).flatMap((doc) => textAt(doc, 'Nb') ?? [])[0] ?? null,
        // In another currency than the payment it cannot split it.
        remitted: remitted?.currency === amount.currency ? remitted.amount : null,
      }
    }),
    unstructured: remittance.flatMap((info) =>
      list((info as Node).Ustrd).flatMap((part) => text(part) ?? []),
    ),
    // .08 wraps the party in `Pty`.
    debtor: textAt(debtor, 'Pty', 'Nm') ?? textAt(debtor, 'Nm'),
    charges: chargesOf((node as Node).Chrgs, `${path}.Chrgs`) ?? new Decimal(0),
  }
}

function entryOf(node: unknown, index: number, path: string): Camt054Entry {
  const amount = amountOf(child(node, 'Amt'), `${path}.Amt`)
  if (!amount) throw invalid(`${path}.Amt`, 'is missing')
  const indicator = textAt(node, 'CdtDbtInd')
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw invalid(`${path}.CdtDbtInd`, 'must be CRDT or DBIT')
  const details = list((node as Node).NtryDtls).flatMap((detail) => list((detail as Node).TxDtls))
  return {
    index,
    entryRef: textAt(node, 'NtryRef'),
    servicerRef: textAt(node, 'AcctSvcrRef'),
    amount: amount.amount,
    currency: amount.currency,
    credit: indicator === 'CRDT' && textAt(node, 'RvslInd') !== 'true',
    bookingDate: dateOf(child(node, 'BookgDt')),
    valueDate: dateOf(child(node, 'ValDt')),
    charges: chargesOf((node as Node).Chrgs, `${path}.Chrgs`),
    transactions: details.map((detail, at) =>
      transactionOf(detail, at + 1, amount.currency, `${path}.NtryDtls.TxDtls[${at + 1}]`),
    ),
  }
}

/** Whether a text looks like an XML document (a CLI file or an upload not labelled as XML). */
export function looksLikeXml(content: string): boolean {
  return /^\uFEFF?\s*</.test(content)
}

/**
 * The entries of an ISO 20022 camt.054 notification (BankToCustomerDebitCreditNotification, .001.02 to .001.08;
 * elements matched by local name). A DOCTYPE is refused before parsing: no entity of the document is ever expanded
 * (no XXE, no billion laughs). Bad XML, another message type or a missing amount: 400 `invalid_camt054` naming it.
 */
export function parseCamt054(xml: string): Camt054Entry[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw invalid('body', 'must not contain a DOCTYPE or ENTITY declaration (camt.054 has none)')
  }
  const nul = xml.indexOf('\u0000')
  if (nul !== -1) {
    throw invalid(`line.${xml.slice(0, nul).split('\n').length}`, 'must not contain U+0000')
  }
  let document: Node
  try {
    const valid = XMLValidator.validate(xml)
    if (valid !== true) {
      const what = FAULTS[valid.err.code] ?? 'the markup is broken'
      throw invalid(`line.${valid.err.line}`, `is not well-formed XML: ${what} (column ${valid.err.col})`)
    }
    document = parser.parse(xml) as Node
  } catch (error) {
    // The parser finds a few faults the validator lets through (an unclosed processing instruction). Its own
    // messages quote the document and name its internals: none of that reaches the client.
    if (error instanceof ClosingRequestError) throw error
    throw invalid('body', 'is not well-formed XML: the markup is broken')
  }
  const root = child(document, 'Document')
  const message = root === undefined ? undefined : child(root, 'BkToCstmrDbtCdtNtfctn')
  if (message === undefined) {
    const top = typeof root === 'object' && root !== null ? root : root === undefined ? document : {}
    const name = Object.keys(top).find((key) => !key.startsWith('@') && key !== '#text')
    const what = name ? (MESSAGE_NAMES[name] ?? `<${name}>`) : 'empty'
    throw invalid('body', `is ${what}, not a camt.054 notification (Document/BkToCstmrDbtCdtNtfctn)`)
  }
  let index = 0
  const entries = list((message as Node).Ntfctn).flatMap((notification, n) =>
    list((notification as Node).Ntry).map((entry, e) =>
      entryOf(entry, ++index, `Ntfctn[${n + 1}].Ntry[${e + 1}]`),
    ),
  )
  if (entries.length === 0) throw invalid('body', 'holds no entry (Ntfctn/Ntry)')
  return entries
}
