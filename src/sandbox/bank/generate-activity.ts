import { Decimal } from 'decimal.js'
import type { Rail, Transaction } from '../../api-client/index.js'
import type { Random } from '../random.js'
import type { AccountRecord } from '../state.js'
import { digits } from './bank-numbers.js'
import { isWeekend } from './iso-date.js'

/** A transaction as the bank reports it, before the ledger stamps it (updatedAt comes from the ledger). */
export type GeneratedTransaction = Transaction & { id: string; connectionId: string; accountId: string }

export type ActivityAccount = Pick<AccountRecord, 'id' | 'connectionId' | 'type' | 'currency'> & {
  openingBalance?: string
}

/** A checking balance below this draws only inflows that day, above HIGH_WATER only outflows. */
const LOW_WATER = 25_000
const HIGH_WATER = 750_000

const CUSTOMERS = [
  'Northwind Trading Co',
  'Bluepeak Logistics',
  'Alder & Finch LLP',
  'Quarry Lane Foods',
  'Helios Robotics',
  'Tidewater Supply',
  'Copperleaf Studios',
  'Orchard Row Retail',
]
const VENDORS = [
  'Stratus Cloud Hosting',
  'Keel Office Supplies',
  'Beacon Insurance Group',
  'Fairway Freight',
  'Lumen Utilities',
  'Cobalt Legal Services',
]
const MERCHANTS: Array<{ name: string; mcc: string; subcategory: string; max: number }> = [
  { name: 'Skyline Airways', mcc: '4511', subcategory: 'airfare', max: 2400 },
  { name: 'Harbor Grill', mcc: '5812', subcategory: 'meals', max: 450 },
  { name: 'Metro Rideshare', mcc: '4121', subcategory: 'groundTransport', max: 90 },
  { name: 'CloudDesk Software', mcc: '5734', subcategory: 'software', max: 900 },
  { name: 'PaperTrail Office', mcc: '5943', subcategory: 'officeSupplies', max: 350 },
  { name: 'Grand Plaza Hotel', mcc: '7011', subcategory: 'lodging', max: 1800 },
]

/** One kind of bank line: how to draw its amount and text. */
type Kind = {
  rail: Rail
  /** Amount range in whole units; negative is an outflow. */
  range: [number, number]
  /** Whether the bank shows it as pending before it settles. */
  canBePending: boolean
  describe(random: Random, date: string): Partial<GeneratedTransaction>
}

const money = (random: Random, [min, max]: [number, number]) =>
  new Decimal(random.int(Math.round(min * 100), Math.round(max * 100))).div(100)

const invoice = (random: Random, date: string) => `INV-${date.slice(0, 4)}-${digits(random, 4)}`
const masked = (random: Random) => `****${digits(random, 4)}`

function incoming(rail: Rail, range: [number, number], baiCode: string | null, label: string): Kind {
  return {
    rail,
    range,
    canBePending: rail !== 'wire',
    describe: (random, date) => {
      const name = random.pick(CUSTOMERS)
      const reference = invoice(random, date)
      return {
        description: `${label} ${name}`,
        rawDescription: `${label} ORIG:${name.toUpperCase()} REF:${reference}`,
        counterpartyName: name,
        counterpartyAccountMasked: masked(random),
        paymentReference: reference,
        customerReference: null,
        baiCode,
        category: 'income',
        subcategory: 'customerPayment',
      }
    },
  }
}

function outgoing(rail: Rail, range: [number, number], baiCode: string | null, label: string): Kind {
  return {
    rail,
    range,
    canBePending: rail !== 'wire' && rail !== 'check',
    describe: (random) => {
      const name = random.pick(VENDORS)
      return {
        description: `${label} ${name}`,
        rawDescription: `${label} ${name.toUpperCase()} PO-${digits(random, 6)}`,
        counterpartyName: name,
        counterpartyAccountMasked: masked(random),
        paymentReference: `BILL-${digits(random, 5)}`,
        customerReference: `PO-${digits(random, 6)}`,
        baiCode,
        category: 'expense',
        subcategory: 'vendorPayment',
      }
    },
  }
}

const CARD: Kind = {
  rail: 'card',
  range: [-2400, -8],
  canBePending: true,
  describe: (random) => {
    const merchant = random.pick(MERCHANTS)
    return {
      amount: money(random, [-merchant.max, -8]).toFixed(2),
      description: merchant.name,
      rawDescription: `POS PURCHASE ${merchant.name.toUpperCase()} ${digits(random, 6)}`,
      merchantName: merchant.name,
      mcc: merchant.mcc,
      counterpartyName: merchant.name,
      baiCode: '699',
      category: 'expense',
      subcategory: merchant.subcategory,
    }
  },
}

const CHECK: Kind = {
  rail: 'check',
  range: [-9000, -100],
  canBePending: false,
  describe: (random) => {
    const number = String(random.int(1001, 9999))
    const name = random.pick(VENDORS)
    return {
      description: `CHECK ${number}`,
      rawDescription: `CHECK PAID #${number}`,
      counterpartyName: name,
      customerReference: `CHK-${number}`,
      baiCode: '475',
      category: 'expense',
      subcategory: 'check',
    }
  },
}

const PAYROLL: Kind = {
  rail: 'ach',
  range: [-45_000, -8_000],
  canBePending: false,
  describe: (random, date) => ({
    description: 'PAYROLL FUNDING',
    rawDescription: `ACH DEBIT PAYROLL RUN ${date.replaceAll('-', '')} ${digits(random, 6)}`,
    counterpartyName: 'Payroll Funding',
    customerReference: `PAYRUN-${date.replaceAll('-', '')}`,
    baiCode: '455',
    category: 'payroll',
    subcategory: 'salaries',
  }),
}

const TRANSFER: Kind = {
  rail: 'internalTransfer',
  range: [-100_000, 100_000],
  canBePending: false,
  describe: (random) => ({
    description: 'BOOK TRANSFER',
    rawDescription: `BOOK TRANSFER REF ${digits(random, 8)}`,
    counterpartyName: 'Own account',
    counterpartyAccountMasked: masked(random),
    baiCode: null,
    category: 'transfer',
    subcategory: 'internal',
  }),
}

const CARD_PAYMENT: Kind = {
  rail: 'ach',
  range: [15_000, 40_000],
  canBePending: false,
  describe: () => ({
    description: 'PAYMENT RECEIVED - THANK YOU',
    rawDescription: 'AUTOPAY PAYMENT RECEIVED',
    counterpartyName: 'Operating Account',
    baiCode: '165',
    category: 'transfer',
    subcategory: 'cardPayment',
  }),
}

/** The kinds of line an account sees on a business day, with relative weights, and how many lines a day. */
function dailyMix(account: ActivityAccount): { kinds: Array<[Kind, number]>; perDay: [number, number] } {
  if (account.type === 'creditCard') return { kinds: [[CARD, 1]], perDay: [0, 3] }
  if (account.type === 'savings' || account.type === 'moneyMarket') {
    return { kinds: [[TRANSFER, 1]], perDay: [0, 0] }
  }
  if (account.currency === 'GBP') {
    return {
      kinds: [
        [incoming('fasterPayments', [250, 12_000], null, 'FPS CREDIT'), 3],
        [outgoing('fasterPayments', [-15_000, -100], null, 'FPS PAYMENT'), 2],
        [outgoing('bacsDirectDebit', [-4_000, -50], null, 'DIRECT DEBIT'), 1],
      ],
      perDay: [0, 2],
    }
  }
  if (account.currency === 'EUR') {
    return {
      kinds: [
        [incoming('sepaCredit', [250, 15_000], null, 'SEPA CREDIT'), 3],
        [outgoing('sepaCredit', [-20_000, -100], null, 'SEPA TRANSFER'), 2],
        [outgoing('sepaDebit', [-3_000, -40], null, 'SEPA DIRECT DEBIT'), 1],
      ],
      perDay: [0, 2],
    }
  }
  return {
    kinds: [
      [incoming('ach', [500, 25_000], '165', 'ACH CREDIT'), 4],
      [incoming('wire', [2_000, 60_000], '195', 'INCOMING WIRE'), 1],
      [outgoing('ach', [-22_000, -150], '455', 'ACH DEBIT'), 4],
      [outgoing('wire', [-45_000, -1_500], '495', 'OUTGOING WIRE'), 1],
      [CARD, 3],
      [CHECK, 1],
    ],
    perDay: [1, 5],
  }
}

function pickWeighted(random: Random, kinds: Array<[Kind, number]>): Kind {
  const total = kinds.reduce((sum, [, weight]) => sum + weight, 0)
  let draw = random.next() * total
  for (const [kind, weight] of kinds) {
    draw -= weight
    if (draw < 0) return kind
  }
  return kinds[kinds.length - 1]![0]
}

function build(
  random: Random,
  account: ActivityAccount,
  kind: Kind,
  date: string,
  pendingChance: number,
): GeneratedTransaction {
  const drawn = kind.describe(random, date)
  const amount = typeof drawn.amount === 'string' ? new Decimal(drawn.amount) : money(random, kind.range)
  const status = kind.canBePending && random.chance(pendingChance) ? 'pending' : 'posted'
  return {
    id: random.uuid(),
    connectionId: account.connectionId,
    accountId: account.id,
    postedDate: date,
    currency: account.currency,
    description: null,
    rawDescription: null,
    customerReference: null,
    bankReference: `${kind.rail === 'wire' ? 'FED' : 'BK'}${digits(random, 10)}`,
    paymentReference: null,
    baiCode: null,
    category: null,
    subcategory: null,
    mcc: null,
    merchantName: null,
    counterpartyName: null,
    counterpartyAccountMasked: null,
    ...drawn,
    amount: amount.toFixed(2),
    status,
    entryType: amount.isNegative() ? 'debit' : 'credit',
    rail: kind.rail,
  }
}

/**
 * One day of realistic commercial activity on one account. Rails that settle in batches (ACH, wires, SEPA,
 * Faster Payments, checks) stay quiet at weekends; cards do not. `scale` (0–1) thins the day, for a sync that
 * runs again on a day already seen. Recurring lines: a monthly fee on the 1st, interest on savings, payroll on
 * the 15th and the 28th, a card payment on the 5th.
 */
export function generateDayActivity(
  random: Random,
  account: ActivityAccount,
  date: string,
  options: { pendingChance: number; scale?: number; balance?: Decimal },
): GeneratedTransaction[] {
  const scale = options.scale ?? 1
  const weekend = isWeekend(date)
  const { kinds, perDay } = dailyMix(account)
  const out: GeneratedTransaction[] = []
  const usable = (weekend ? kinds.filter(([kind]) => kind.rail === 'card') : kinds).filter(([kind]) =>
    leansTo(account, options.balance, kind),
  )
  const count =
    usable.length === 0 ? 0 : Math.round(random.int(perDay[0], perDay[1]) * scale * (weekend ? 0.4 : 1))
  for (let i = 0; i < count; i++) {
    out.push(build(random, account, pickWeighted(random, usable), date, options.pendingChance))
  }
  if (scale < 1) return out
  const day = date.slice(8, 10)
  const isDeposit = account.type !== 'creditCard'
  if (day === '01' && isDeposit) out.push(fee(random, account, date))
  if (day === '01' && (account.type === 'savings' || account.type === 'moneyMarket')) {
    out.push(interest(random, account, date))
  }
  if ((account.type === 'savings' || account.type === 'moneyMarket') && !weekend && random.chance(0.08)) {
    out.push(build(random, account, TRANSFER, date, 0))
  }
  if (
    (day === '15' || day === '28') &&
    account.type === 'checking' &&
    account.currency === 'USD' &&
    !weekend
  ) {
    out.push(build(random, account, PAYROLL, date, 0))
  }
  if (day === '05' && account.type === 'creditCard') {
    // The autopay clears the statement balance when it is known.
    const owed = options.balance?.negated()
    if (!owed) out.push(build(random, account, CARD_PAYMENT, date, 0))
    else if (owed.isPositive() && !owed.isZero()) {
      const value = owed.toDecimalPlaces(2).toNumber()
      out.push(build(random, account, { ...CARD_PAYMENT, range: [value, value] }, date, 0))
    }
  }
  return out
}

/** Keeps a checking balance within a plausible band, so long runs do not drift far up or below zero. */
function leansTo(account: ActivityAccount, balance: Decimal | undefined, kind: Kind): boolean {
  if (!balance || account.type !== 'checking') return true
  if (balance.lessThan(LOW_WATER)) return kind.range[0] > 0
  if (balance.greaterThan(HIGH_WATER)) return kind.range[1] < 0
  return true
}

function fee(random: Random, account: ActivityAccount, date: string): GeneratedTransaction {
  return build(
    random,
    account,
    {
      rail: 'other',
      range: [-350, -25],
      canBePending: false,
      describe: () => ({
        description: 'MONTHLY ACCOUNT ANALYSIS FEE',
        rawDescription: `ACCOUNT ANALYSIS FEE ${date.slice(0, 7)}`,
        baiCode: account.currency === 'USD' ? '698' : null,
        category: 'bankFees',
        subcategory: 'serviceCharge',
      }),
    },
    date,
    0,
  )
}

function interest(random: Random, account: ActivityAccount, date: string): GeneratedTransaction {
  return build(
    random,
    account,
    {
      rail: 'other',
      range: [20, 4_000],
      canBePending: false,
      describe: () => ({
        description: 'INTEREST PAYMENT',
        rawDescription: `INTEREST CREDIT ${date.slice(0, 7)}`,
        baiCode: '354',
        category: 'income',
        subcategory: 'interest',
      }),
    },
    date,
    0,
  )
}
