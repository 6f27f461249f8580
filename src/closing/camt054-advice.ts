import { Decimal } from 'decimal.js'
import type { MatchTransactionRow } from '../store/index.js'
import { parseCamt054OffThread } from './camt054-off-thread.js'
import type { Camt054Entry, Camt054Transaction } from './camt054-parse.js'
import { ClosingRequestError } from './closing-errors.js'
import { invalidRemittance, type RemittanceAdvice } from './remittance.js'

type BankLine = Pick<
  MatchTransactionRow,
  'amount' | 'currency' | 'posted_date' | 'bank_reference' | 'payment_reference' | 'customer_reference'
>

function describe(entry: Camt054Entry): string {
  const ref = entry.entryRef ?? entry.servicerRef
  return `Ntry ${entry.index}${ref ? ` (${ref})` : ''}: ${entry.amount} ${entry.currency} ${entry.credit ? 'credit' : 'debit'}${entry.bookingDate ? ` booked ${entry.bookingDate}` : ''}`
}

/** Why an entry cannot be the bank line's, or null when it fits. */
function misfit(entry: Camt054Entry, line: BankLine): string | null {
  if (!entry.credit) return 'a debit or a reversal, the bank line is a payment received'
  if (entry.currency !== line.currency) return `in ${entry.currency}, the bank line in ${line.currency}`
  if (!new Decimal(entry.amount).eq(line.amount ?? 0))
    return `of another amount than the bank line's ${line.amount}`
  if (entry.transactions.length === 0) return 'without transaction details (NtryDtls/TxDtls) to split it by'
  return null
}

function mismatch(message: string, entries: readonly Camt054Entry[], line: BankLine): ClosingRequestError {
  return new ClosingRequestError(
    'unprocessable',
    'camt_entry_mismatch',
    `${message}. Nothing was applied.`,
    entries.map((entry) => ({
      path: `Ntry.${entry.index}`,
      message: `${describe(entry)}${misfit(entry, line) ? `: ${misfit(entry, line)}` : ''}`,
    })),
  )
}

/**
 * The entry of the document that is this bank line: the one asked for (`NtryRef` or `AcctSvcrRef`), else the
 * credit entries of its amount and currency, narrowed by booking or value date, then by the bank's reference.
 * None or several: 422 `camt_entry_mismatch` naming each entry and why it does not fit.
 */
export function chooseEntry(entries: readonly Camt054Entry[], line: BankLine, asked?: string): Camt054Entry {
  if (asked !== undefined) {
    const named = entries.filter((entry) => entry.entryRef === asked || entry.servicerRef === asked)
    if (named.length !== 1) {
      throw mismatch(
        named.length === 0
          ? `No entry has NtryRef or AcctSvcrRef "${asked}"`
          : `${named.length} entries have the reference "${asked}"`,
        entries,
        line,
      )
    }
    const why = misfit(named[0]!, line)
    if (why) throw mismatch(`Entry "${asked}" is ${why}`, named, line)
    return named[0]!
  }
  let fitting = entries.filter((entry) => misfit(entry, line) === null)
  const narrowed = [
    (entry: Camt054Entry) =>
      line.posted_date !== null && [entry.bookingDate, entry.valueDate].includes(line.posted_date),
    (entry: Camt054Entry) =>
      [line.bank_reference, line.payment_reference, line.customer_reference].some(
        (ref) => ref !== null && (ref === entry.servicerRef || ref === entry.entryRef),
      ),
  ]
  for (const test of narrowed) {
    if (fitting.length <= 1) break
    const kept = fitting.filter(test)
    if (kept.length > 0) fitting = kept
  }
  if (fitting.length === 1) return fitting[0]!
  throw mismatch(
    fitting.length === 0
      ? `No entry of the document fits the bank line (${line.amount} ${line.currency} received)`
      : `${fitting.length} entries fit the bank line: choose one with ?entry= (CLI --entry) and its NtryRef or AcctSvcrRef`,
    fitting.length === 0 ? entries : fitting,
    line,
  )
}

const joined = (parts: readonly string[]) => (parts.length > 0 ? parts.join(' ') : null)

/**
 * The advice lines of one payment: a line per structured remittance block when there are several, each naming a
 * document and the amount remitted for it, and those amounts add up to the payment; else one line, its invoice
 * named by all the payment's references and text.
 */
function linesOf(tx: Camt054Transaction): RemittanceAdvice['lines'] {
  const { documents } = tx
  const split =
    documents.length > 1 &&
    documents.every((doc) => doc.remitted !== null && (doc.reference ?? doc.number) !== null) &&
    documents.reduce((sum, doc) => sum.plus(doc.remitted!), new Decimal(0)).eq(tx.amount)
  if (split) {
    return documents.map((doc) => ({
      amount: doc.remitted!,
      reference: {
        label: (doc.reference ?? doc.number)!,
        structured: doc.reference,
        documents: doc.number,
        text: null,
      },
    }))
  }
  return [
    {
      amount: tx.amount,
      reference: {
        label: tx.creditorReferences[0] ?? tx.documentNumbers[0] ?? tx.endToEndId ?? `TxDtls ${tx.line}`,
        structured: joined(tx.creditorReferences),
        documents: joined(tx.documentNumbers),
        text: joined(tx.unstructured),
      },
    },
  ]
}

/**
 * A camt.054 entry as a remittance advice: a line per TxDtls (or per structured block of one paying several
 * invoices), its invoice found by its references, and as fee the entry's charges (or, when it states none, its
 * transactions' charges). A TxDtls that is a debit or in another currency: 422 `invalid_remittance`.
 */
export function entryAdvice(entry: Camt054Entry, feeReason?: 'bank_fee' | 'psp_fee'): RemittanceAdvice {
  const problems: Array<{ path: string; message: string }> = entry.transactions.flatMap((tx) => {
    const path = `lines.${tx.line}`
    if (!tx.credit) return [{ path, message: 'TxDtls is a debit: only payments received settle invoices' }]
    if (tx.currency !== entry.currency)
      return [{ path, message: `TxDtls is in ${tx.currency}, its entry in ${entry.currency}` }]
    return []
  })
  const fee = entry.charges ?? entry.transactions.reduce((sum, tx) => sum.plus(tx.charges), new Decimal(0))
  // Charges credited back beyond those debited would write off less than nothing (issue 26).
  if (fee.isNegative()) {
    problems.push({
      path: 'fee',
      message: `must be 0 or more: the charges of Ntry ${entry.index} (Chrgs, credited back) come to ${fee.toFixed()}`,
    })
  }
  if (problems.length > 0) throw invalidRemittance(problems)
  return {
    lines: entry.transactions.flatMap(linesOf),
    fee: fee.toFixed(),
    ...(feeReason ? { feeReason } : {}),
    source: `camt.054 ${describe(entry)}${entry.servicerRef && entry.entryRef ? `, AcctSvcrRef ${entry.servicerRef}` : ''}`,
  }
}

/** The advice of a camt.054 document for the bank line it is imported against (`importRemittance`). */
export type Camt054AdviceOf = (line: BankLine) => RemittanceAdvice

/**
 * A camt.054 document as the advice for the bank line it is imported against: parsed at once, off the event loop
 * and within its caps (400 `invalid_camt054` or `camt054_too_complex`, 422 `camt054_too_slow`), its entry chosen
 * once the bank line is known.
 */
export async function camt054Advice(
  xml: string,
  options: { entry?: string; feeReason?: 'bank_fee' | 'psp_fee'; budgetMs?: number } = {},
): Promise<Camt054AdviceOf> {
  const entries = await parseCamt054OffThread(xml, { budgetMs: options.budgetMs })
  return (line) => entryAdvice(chooseEntry(entries, line, options.entry), options.feeReason)
}
