import { Decimal } from 'decimal.js'
import type { Rail } from '../api-client/index.js'
import { createRandom, type Random } from '../sandbox/index.js'
import { REFERENCE_STYLES, writeReference, type ReferenceFields } from './reference-noise.js'

/** What the story needs of an invoice (an InvoiceInput is one). */
export type DemoInvoice = {
  id: string
  number: string
  amount: string
  currency: string
  customerName: string | null
  customerAliases: string[]
}

export type DemoExceptionType = 'overpayment' | 'currency_mismatch' | 'suggested_match' | 'unmatched_payment'

/** One payment the story's payer makes, and what reconciling it must end in. */
export type DemoPayment = ReferenceFields & {
  /** Stable within a seed; the bank reference `DEMO-<key>` marks the payment in the bank, so a restart finds it. */
  key: string
  /** What the payment shows, in words. */
  label: string
  amount: string
  currency: string
  counterpartyName: string
  rail: Rail
  /** Reported pending first, posted in a later step. */
  pendingFirst: boolean
  /** The invoices it pays (in the order named). */
  invoiceIds: string[]
  /** Once reconciled: the settled amount allocated to invoices and the open exception it raised, if any. */
  expect: { allocated: string; exception: DemoExceptionType | null }
}

/** One step of the story: a payment reported (pending or posted), or a pending one settling. */
export type DemoStep = { kind: 'pay'; payment: DemoPayment } | { kind: 'settle'; payment: DemoPayment }

export type DemoPlan = {
  seed: number
  payments: DemoPayment[]
  /** In the order the payer acts; a settlement or a remainder comes a few steps after what it follows. */
  steps: DemoStep[]
  /** Invoice statuses once every payment is reconciled, by invoice id. */
  invoiceStatuses: Record<string, 'open' | 'partially_paid' | 'paid' | 'overpaid'>
}

export const DEFAULT_DEMO_SEED = 42
/** Invoices nobody pays: receivables still open at the end. */
const LEFT_OPEN = 5
/** Every how many single payments one is reported pending first. */
const PENDING_EVERY = 6
/** Steps between a payment and its settlement or remainder. */
const FOLLOW_UP_GAP = 4
const UNKNOWN_PAYER = 'Wayne Enterprises'
/** The currency the foreign-currency payment is made in (its invoice is in another one). */
const FOREIGN_CURRENCY = 'USD'

const RAILS: Record<string, Rail> = { USD: 'ach', EUR: 'sepaCredit', GBP: 'fasterPayments' }

function railOf(currency: string): Rail {
  return RAILS[currency] ?? 'wire'
}

/** The payer as the bank shows it: the customer's name or an alias, sometimes shouted. */
function payerName(random: Random, invoice: DemoInvoice): string {
  const names = [invoice.customerName ?? 'Unknown payer', ...invoice.customerAliases]
  const name = random.pick(names)
  return random.chance(0.3) ? name.toUpperCase() : name
}

function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** A share between 30 % and 70 % of an amount, to the cent. */
function part(random: Random, amount: string): string {
  return new Decimal(amount)
    .mul(random.int(30, 70))
    .div(100)
    .toDecimalPlaces(2, Decimal.ROUND_DOWN)
    .toFixed(2)
}

/**
 * The demo story, deterministic from the seed: which invoice gets which kind of payment, in which reference style,
 * in which order. Its shape is fixed (so its outcome is): single payments in every reference style, some
 * reported pending first; two invoices paid in two parts; one paid in part only; one overpaid; one payment for
 * three invoices; one without a reference from a known customer (a suggestion); one in a foreign currency; one
 * from nobody the books know; and a few invoices nobody pays.
 */
export function planDemoStory(invoices: readonly DemoInvoice[], seed = DEFAULT_DEMO_SEED): DemoPlan {
  const random = createRandom(seed).fork('demo-story')
  const pool = shuffled(random, invoices)
  const take = (where: (invoice: DemoInvoice) => boolean = () => true): DemoInvoice => {
    const index = pool.findIndex(where)
    if (index < 0) throw new Error('the demo story needs more invoices than the fixture holds')
    return pool.splice(index, 1)[0]!
  }
  const payments: DemoPayment[] = []
  const steps: DemoStep[] = []
  const followUps: Array<{ at: number; step: DemoStep }> = []
  const statuses: DemoPlan['invoiceStatuses'] = {}
  let counter = 0
  const add = (payment: Omit<DemoPayment, 'key'>, later = false): DemoPayment => {
    const full = { key: `P${String(++counter).padStart(2, '0')}`, ...payment }
    payments.push(full)
    if (later) followUps.push({ at: steps.length + FOLLOW_UP_GAP, step: { kind: 'pay', payment: full } })
    else steps.push({ kind: 'pay', payment: full })
    if (full.pendingFirst)
      followUps.push({ at: steps.length + FOLLOW_UP_GAP, step: { kind: 'settle', payment: full } })
    return full
  }
  const paying = (invoice: DemoInvoice, amount: string, fields: ReferenceFields, payer: string) => ({
    ...fields,
    amount,
    currency: invoice.currency,
    counterpartyName: payer,
    rail: railOf(invoice.currency),
    invoiceIds: [invoice.id],
  })

  for (let i = 0; i < LEFT_OPEN; i++) statuses[take().id] = 'open'

  const suggested = take((i) => i.customerName !== null)
  statuses[suggested.id] = 'open'
  const sameCustomer = (invoice: DemoInvoice) => (other: DemoInvoice) =>
    other.customerName === invoice.customerName && other.currency === invoice.currency
  const multi = [take()]
  multi.push(take(sameCustomer(multi[0]!)), take(sameCustomer(multi[0]!)))
  for (const invoice of multi) statuses[invoice.id] = 'paid'
  const foreign = take((i) => i.currency !== FOREIGN_CURRENCY)
  statuses[foreign.id] = 'open'
  const overpaid = take()
  statuses[overpaid.id] = 'overpaid'
  const inParts = [take(), take()]
  for (const invoice of inParts) statuses[invoice.id] = 'paid'
  const partOnly = take()
  statuses[partOnly.id] = 'partially_paid'

  function payInParts(invoice: DemoInvoice, complete: boolean) {
    const first = part(random, invoice.amount)
    const payer = payerName(random, invoice)
    add({
      ...paying(invoice, first, writeReference(invoice.number, 'exact', payer), payer),
      label: `pays part of ${invoice.number}`,
      pendingFirst: false,
      expect: { allocated: first, exception: null },
    })
    if (!complete) return
    const rest = new Decimal(invoice.amount).minus(first).toFixed(2)
    add(
      {
        ...paying(invoice, rest, writeReference(invoice.number, 'lower case and spaces', payer), payer),
        label: `pays the rest of ${invoice.number}`,
        pendingFirst: false,
        expect: { allocated: rest, exception: null },
      },
      true,
    )
  }

  const beats: Array<() => void> = [
    () => payInParts(inParts[0]!, true),
    () => {
      const payer = payerName(random, overpaid)
      const amount = new Decimal(overpaid.amount).plus(random.int(5, 95) * 10).toFixed(2)
      add({
        ...paying(overpaid, amount, writeReference(overpaid.number, 'exact', payer), payer),
        label: `pays more than ${overpaid.number} asks`,
        pendingFirst: false,
        expect: { allocated: overpaid.amount, exception: 'overpayment' },
      })
    },
    () => {
      const total = multi.reduce((sum, i) => sum.plus(i.amount), new Decimal(0)).toFixed(2)
      const numbers = multi.map((i) => i.number)
      add({
        ...paying(
          multi[0]!,
          total,
          { paymentReference: numbers.join(' '), customerReference: null, description: null },
          payerName(random, multi[0]!),
        ),
        invoiceIds: multi.map((i) => i.id),
        label: `pays ${numbers.join(', ')} at once`,
        pendingFirst: false,
        expect: { allocated: total, exception: null },
      })
    },
    () => {
      add({
        ...paying(
          suggested,
          suggested.amount,
          { paymentReference: null, customerReference: null, description: null },
          suggested.customerName!,
        ),
        invoiceIds: [],
        label: 'pays without a reference (an invoice of this customer has exactly this amount)',
        pendingFirst: false,
        expect: { allocated: '0', exception: 'suggested_match' },
      })
    },
    () => payInParts(inParts[1]!, true),
    () => {
      const payer = payerName(random, foreign)
      add({
        ...paying(foreign, foreign.amount, writeReference(foreign.number, 'exact', payer), payer),
        currency: FOREIGN_CURRENCY,
        rail: railOf(FOREIGN_CURRENCY),
        invoiceIds: [],
        label: `pays ${foreign.number} (${foreign.currency}) in ${FOREIGN_CURRENCY}`,
        pendingFirst: false,
        expect: { allocated: '0', exception: 'currency_mismatch' },
      })
    },
    () => {
      const amount = new Decimal(random.int(20_000, 90_000)).div(100).toFixed(2)
      add({
        paymentReference: `REFUND ${random.int(100000, 999999)}`,
        customerReference: null,
        description: null,
        amount,
        currency: FOREIGN_CURRENCY,
        counterpartyName: UNKNOWN_PAYER,
        rail: railOf(FOREIGN_CURRENCY),
        invoiceIds: [],
        label: 'is unknown to the books and pays',
        pendingFirst: false,
        expect: { allocated: '0', exception: 'unmatched_payment' },
      })
    },
    () => payInParts(partOnly, false),
  ]
  const singles = pool.splice(0)
  // Spread the beats over the story, one every few single payments.
  const spacing = Math.max(1, Math.floor(singles.length / (beats.length + 1)))
  const beatAfter = new Map(beats.map((beat, index) => [(index + 1) * spacing - 1, beat]))
  const styles = shuffled(random, REFERENCE_STYLES)
  singles.forEach((invoice, index) => {
    const style = styles[index % styles.length]!
    const payer = payerName(random, invoice)
    statuses[invoice.id] = 'paid'
    add({
      ...paying(invoice, invoice.amount, writeReference(invoice.number, style, payer), payer),
      rail: style === 'SWIFT /INV/ code' ? 'swift' : railOf(invoice.currency),
      label: `pays ${invoice.number} in full (${style})`,
      pendingFirst: index % PENDING_EVERY === PENDING_EVERY - 1,
      expect: { allocated: invoice.amount, exception: null },
    })
    // Story beats go between the single payments, so each kind shows up early and the follow-ups have room.
    beatAfter.get(index)?.()
    while (followUps.length > 0 && followUps[0]!.at <= steps.length) steps.push(followUps.shift()!.step)
  })

  for (const followUp of followUps) steps.push(followUp.step)
  return { seed, payments, steps, invoiceStatuses: statuses }
}
