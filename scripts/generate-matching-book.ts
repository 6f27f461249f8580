/**
 * Generates a realistic set of books for the matching corpus (docs/matching.md, "The corpus"), deterministically
 * from a seed: customers of eleven countries (families with near-identical names, IBANs with valid check digits,
 * US account and routing numbers), thousands of open invoices spread over months with issue and due dates in four
 * number spaces (`INV-2025-00412`, digits-only `100412`, `SI-04512`, Nordic `2500412`), the structured references
 * each country prints (RF, Belgian OGM, Finnish, KID), prices shared across customers, and the customers' own PO
 * and customer numbers (some colliding with invoice numbers).
 *
 *   npx tsx scripts/generate-matching-book.ts <seed> <invoices> <out.json>
 *
 * A book a frozen case file reads is committed and never regenerated: changing this script changes new books only.
 */
import { writeFileSync } from 'node:fs'
import { Decimal } from 'decimal.js'
import type { MatchCustomer, MatchInvoice } from '../src/matcher/index.js'
import {
  abaRouting,
  finnishReference,
  kidReference,
  ogmReference,
  randomIban,
  rfReference,
  Random,
} from '../test/support/bank-refs.js'

type Country = 'DE' | 'AT' | 'NL' | 'BE' | 'FR' | 'FI' | 'NO' | 'ES' | 'IT' | 'GB' | 'US' | 'GR' | 'BG'

/** Per country: its currency, the entity (and number series) invoicing it, legal forms, BBAN shape, scheme. */
const COUNTRIES: Record<
  Country,
  { currency: string; entity: string; forms: string[]; bban?: (r: Random) => string; scheme?: string }
> = {
  DE: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['GmbH', 'AG', 'GmbH & Co. KG', 'KG', 'e.K.'],
    bban: (r) => `${r.pick(['37040044', '10070000', '50010517', '20041133', '12030000'])}${r.digits(10)}`,
    scheme: 'rf',
  },
  AT: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['GmbH', 'AG', 'OG'],
    bban: (r) => `${r.pick(['12000', '20111', '32000'])}${r.digits(11)}`,
    scheme: 'rf',
  },
  NL: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['B.V.', 'N.V.', 'V.O.F.'],
    bban: (r) => `${r.pick(['ABNA', 'INGB', 'RABO', 'TRIO'])}${r.digits(10)}`,
    scheme: 'rf',
  },
  BE: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['BV', 'NV', 'SRL', 'SA'],
    bban: (r) => `${r.pick(['001', '068', '310', '363', '735'])}${r.digits(9)}`,
    scheme: 'ogm',
  },
  FR: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['SARL', 'SAS', 'SA', 'EURL'],
    bban: (r) => `${r.pick(['30004', '30003', '10107', '20041'])}${r.digits(5)}${r.digits(11)}${r.digits(2)}`,
  },
  FI: {
    currency: 'EUR',
    entity: 'ent_nordic',
    forms: ['Oy', 'Oyj', 'Ky'],
    bban: (r) => `${r.pick(['100', '200', '500', '800'])}${r.digits(11)}`,
    scheme: 'fi',
  },
  NO: {
    currency: 'NOK',
    entity: 'ent_nordic',
    forms: ['AS', 'ASA', 'ANS'],
    bban: (r) => `${r.pick(['1503', '8601', '9710', '1206'])}${r.digits(7)}`,
    scheme: 'kid',
  },
  ES: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['S.L.', 'S.A.', 'S.L.U.'],
    bban: (r) => `${r.pick(['2100', '0049', '0182', '2085'])}${r.digits(16)}`,
  },
  IT: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['S.r.l.', 'S.p.A.', 'S.n.c.'],
    bban: (r) =>
      `${r.pick(['X', 'A', 'K'])}${r.pick(['03069', '02008', '05034'])}${r.digits(5)}${r.digits(12)}`,
  },
  GB: {
    currency: 'GBP',
    entity: 'ent_uk',
    forms: ['Ltd', 'Limited', 'PLC', 'LLP'],
    bban: (r) => `${r.pick(['NWBK', 'BARC', 'LOYD', 'HBUK', 'MIDL'])}${r.digits(6)}${r.digits(8)}`,
  },
  US: { currency: 'USD', entity: 'ent_us', forms: ['Inc.', 'LLC', 'Corp.', 'Co.'] },
  GR: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['A.E.', 'E.P.E.', 'I.K.E.'],
    bban: (r) => `${r.pick(['0110', '0140', '0172'])}${r.digits(3)}${r.digits(16)}`,
  },
  BG: {
    currency: 'EUR',
    entity: 'ent_eu',
    forms: ['EOOD', 'OOD', 'AD'],
    bban: (r) => `${r.pick(['UNCR', 'BPBI', 'STSA'])}${r.digits(4)}${r.digits(2)}${r.digits(8)}`,
  },
}

const WORDS: Record<string, string[]> = {
  DE: [
    'Müller',
    'Schneider',
    'Fischer',
    'Weber',
    'Wagner',
    'Becker',
    'Hoffmann',
    'Schäfer',
    'Koch',
    'Richter',
    'Klein',
    'Wolf',
    'Schröder',
    'Neumann',
    'Braun',
    'Zimmermann',
    'Krüger',
    'Hartmann',
    'Lange',
    'Werner',
    'Köhler',
    'Maier',
    'Jäger',
    'Böhm',
  ],
  NL: [
    'Van den Berg',
    'De Vries',
    'Jansen',
    'Bakker',
    'Visser',
    'Smit',
    'Meijer',
    'Mulder',
    'De Boer',
    'Bos',
    'Vos',
    'Peters',
  ],
  BE: [
    'Peeters',
    'Janssens',
    'Maes',
    'Jacobs',
    'Mertens',
    'Willems',
    'Claes',
    'Goossens',
    'Wouters',
    'Dubois',
  ],
  FR: [
    'Dupont',
    'Martin',
    'Bernard',
    'Durand',
    'Lefèvre',
    'Moreau',
    'Laurent',
    'Girard',
    'Rousseau',
    'Fournier',
  ],
  FI: ['Virtanen', 'Korhonen', 'Mäkinen', 'Nieminen', 'Hämäläinen', 'Laine', 'Heikkinen', 'Koskinen'],
  NO: [
    'Hansen',
    'Johansen',
    'Olsen',
    'Larsen',
    'Andersen',
    'Pedersen',
    'Nilsen',
    'Kristiansen',
    'Nordic Supply',
    'Fjord',
  ],
  ES: ['García', 'Martínez', 'López', 'Sánchez', 'Pérez', 'Gómez', 'Fernández'],
  IT: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci'],
  GB: [
    'Johnson',
    'Smith',
    'Taylor',
    'Brown',
    'Williams',
    'Wilson',
    'Davies',
    'Evans',
    'Thomas',
    'Roberts',
    'Walker',
    'Wright',
  ],
  US: [
    'Acme',
    'Summit',
    'Pioneer',
    'Liberty',
    'Evergreen',
    'Keystone',
    'Redwood',
    'Harbor',
    'Frontier',
    'Lakeside',
    'Granite',
    'Prairie',
    'Atlas',
    'Beacon',
  ],
  AT: ['Gruber', 'Huber', 'Bauer', 'Wagner', 'Pichler', 'Steiner', 'Moser', 'Mayer'],
  GR: ['Papadopoulos', 'Georgiou', 'Nikolaou', 'Dimitriou'],
  BG: ['Ivanov', 'Petrov', 'Dimitrov', 'Georgiev'],
}
const TRADES = [
  'Trading',
  'Industries',
  'Supply',
  'Services',
  'Consulting',
  'Foods',
  'Packaging',
  'Systems',
  'Holding',
  'Engineering',
  'Textiles',
  'Medical',
  'Software',
]
const TRADES_DE = [
  'Haustechnik',
  'Logistik',
  'Bau',
  'Elektro',
  'Metallbau',
  'Maschinenbau',
  'Handel',
  'Systems',
  'Software',
]
const COUNTS: Array<[Country, number]> = [
  ['DE', 95],
  ['AT', 20],
  ['NL', 30],
  ['BE', 25],
  ['FR', 30],
  ['FI', 20],
  ['NO', 22],
  ['ES', 15],
  ['IT', 15],
  ['GB', 60],
  ['US', 85],
  ['GR', 4],
  ['BG', 4],
]
/** Prices many customers pay: subscriptions, standard items, with and without VAT. */
const PRICES = [
  '49.00',
  '99.00',
  '119.00',
  '238.00',
  '250.00',
  '499.00',
  '595.00',
  '1190.00',
  '1500.00',
  '2380.00',
  '4998.00',
  '12.50',
]

/**
 * Families of near-identical customers, each member in its country: the names a payer's bank text confuses
 * (legal-form twins, "Gesellschaft" vs GmbH, one letter apart, the same name in three countries).
 */
const FAMILIES: Array<Array<[Country, string]>> = [
  [
    ['DE', 'Schneider Logistik GmbH'],
    ['DE', 'Schneider Gesellschaft für Logistik mbH'],
    ['AT', 'Schneider Logistik GmbH'],
  ],
  [
    ['DE', 'Müller Haustechnik GmbH'],
    ['DE', 'Mueller Haustechnik GmbH & Co. KG'],
    ['DE', 'Müller Haustechnik Service GmbH'],
  ],
  [
    ['NO', 'Nordic Supply AS'],
    ['FI', 'Nordic Supply Oy'],
    ['GB', 'Nordic Supply Ltd'],
  ],
  [
    ['US', 'Acme Industries Inc.'],
    ['US', 'Acme Industries LLC'],
    ['US', 'Acme Industrial Supply Inc.'],
  ],
  [
    ['GB', 'Johnson & Sons Ltd'],
    ['GB', 'Johnsons Ltd'],
    ['GB', 'Jonson & Sons Ltd'],
  ],
  [
    ['NL', 'Van den Berg B.V.'],
    ['NL', 'Van der Berg B.V.'],
  ],
  [
    ['FR', 'Dupont SARL'],
    ['FR', 'Dupont SAS'],
  ],
  [
    ['US', "Joe's Diner LLC"],
    ['US', "Jo's Diner LLC"],
  ],
  [
    ['US', 'Summit Health Partners LLC'],
    ['US', 'Summit Health Partners of Ohio LLC'],
  ],
  [
    ['GR', 'Papadopoulos Trading A.E.'],
    ['BG', 'Ivanov Trading EOOD'],
  ],
]

const STARTS = { first: '2025-09-01', days: 200 } // issue dates 2025-09-01 … 2026-03-19

function addDays(date: string, days: number): string {
  const at = new Date(`${date}T00:00:00Z`)
  at.setUTCDate(at.getUTCDate() + days)
  return at.toISOString().slice(0, 10)
}

function amount(random: Random): string {
  if (random.chance(0.3)) return random.pick(PRICES)
  const net = new Decimal(Math.exp(random.next() * 7.5 + 3.2)).toDecimalPlaces(0)
  return random.chance(0.5) ? net.times('1.19').toFixed(2) : net.plus(random.int(0, 99) / 100).toFixed(2)
}

type Customer = MatchCustomer & { country: Country; customerNumber: string; terms: number; routing?: string }

function customers(random: Random): Customer[] {
  const made: Customer[] = []
  const used = new Set<string>()
  const add = (country: Country, name: string) => {
    if (used.has(`${country} ${name}`)) return
    used.add(`${country} ${name}`)
    const spec = COUNTRIES[country]
    const accounts: string[] = []
    let routing: string | undefined
    const count = random.chance(0.2) ? 2 : 1
    for (let n = 0; n < count; n++) {
      if (spec.bban) accounts.push(randomIban(random, country, spec.bban))
      else {
        routing = abaRouting(random)
        accounts.push(random.digits(random.pick([9, 10, 12])))
      }
    }
    made.push({
      id: `cus_${String(made.length + 1).padStart(4, '0')}`,
      name,
      bankAccounts: random.chance(0.9) ? accounts : [],
      country,
      customerNumber: `${random.int(10000, 99999)}`,
      terms: random.pick([14, 30, 30, 30, 45, 60]),
      ...(routing ? { routing } : {}),
    })
  }
  for (const family of FAMILIES) for (const [country, name] of family) add(country, name)
  for (const [country, count] of COUNTS) {
    const spec = COUNTRIES[country]
    for (let n = 0; made.filter((c) => c.country === country).length < count && n < count * 20; n++)
      add(
        country,
        `${random.pick(WORDS[country] as string[])} ${random.pick(country === 'DE' || country === 'AT' ? TRADES_DE : TRADES)} ${random.pick(spec.forms)}`,
      )
  }
  return made
}

/** The invoice numbers of each entity's series, in issue order: per year for INV-, running for the others. */
function numberer(): (entity: string, issueDate: string) => string {
  const counters = new Map<string, number>()
  return (entity, issueDate) => {
    const year = issueDate.slice(0, 4)
    const key = entity === 'ent_eu' ? `${entity}${year}` : entity
    const next = (counters.get(key) ?? 0) + 1
    counters.set(key, next)
    if (entity === 'ent_eu') return `INV-${year}-${String(next + 11).padStart(5, '0')}`
    if (entity === 'ent_us') return String(100000 + next)
    if (entity === 'ent_uk') return `SI-${String(4000 + next).padStart(5, '0')}`
    return `${year.slice(2)}${String(400 + next).padStart(5, '0')}`
  }
}

const ACCOUNTS: Record<string, string> = { EUR: 'acc_eur', USD: 'acc_usd', GBP: 'acc_gbp', NOK: 'acc_nok' }

function generate(seed: number, total: number) {
  const random = new Random(seed)
  const book = customers(random)
  // A few large customers hold many invoices, most hold a handful.
  const weights = book.map(() => (random.chance(0.08) ? random.int(40, 120) : random.int(3, 18)))
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0)
  const drafts: Array<{ customer: Customer; issueDate: string }> = []
  book.forEach((customer, at) => {
    const count = Math.max(1, Math.round(((weights[at] as number) * total) / weightSum))
    for (let n = 0; n < count; n++)
      drafts.push({ customer, issueDate: addDays(STARTS.first, random.int(0, STARTS.days)) })
  })
  drafts.sort((a, b) => (a.issueDate < b.issueDate ? -1 : a.issueDate > b.issueDate ? 1 : 0))
  const next = numberer()
  const purchaseOrders: Record<string, string> = {}
  const invoices: MatchInvoice[] = drafts.map(({ customer, issueDate }, at) => {
    const spec = COUNTRIES[customer.country]
    const id = `inv_${String(at + 1).padStart(5, '0')}`
    const number = next(spec.entity, issueDate)
    const digits = number.replace(/\D/g, '')
    const reference =
      spec.scheme === 'ogm'
        ? ogmReference(`${customer.customerNumber.slice(-3)}${digits.slice(-7)}`)
        : spec.scheme === 'fi'
          ? finnishReference(`${customer.customerNumber.slice(-3)}${digits.slice(-6)}`)
          : spec.scheme === 'kid'
            ? kidReference(`${customer.customerNumber}${digits.slice(-6)}`)
            : spec.scheme === 'rf' && random.chance(0.4)
              ? rfReference(`${digits.slice(-9)}`)
              : null
    const invoice: MatchInvoice = {
      id,
      number,
      amount: amount(random),
      currency: spec.currency,
      customerId: customer.id,
      customerName: customer.name,
      issueDate,
      dueDate: addDays(issueDate, customer.terms),
      entityId: spec.entity,
      accountId: ACCOUNTS[spec.currency] ?? null,
      ...(reference ? { paymentReference: reference } : {}),
      ...(customer.country === 'DE' && random.chance(0.1)
        ? { earlyPaymentDiscount: { percent: '2', until: addDays(issueDate, 10) } }
        : {}),
    }
    // The customer's own order number: SAP-style for most, six digits for some (the same space as 100412).
    if (random.chance(0.45))
      purchaseOrders[id] = random.chance(0.25)
        ? String(random.int(100001, 100000 + drafts.length))
        : `45${random.digits(8)}`
    return invoice
  })
  return {
    description:
      `A realistic set of books generated by scripts/generate-matching-book.ts (seed ${seed}): open invoices of ` +
      'customers in 13 countries over seven months. purchaseOrders and customerNumbers are what customers write ' +
      'in their remittance (not invoice fields); routing holds US customers’ ABA routing numbers.',
    seed,
    today: '2026-03-31',
    customers: book.map(
      ({ country: _c, customerNumber: _n, terms: _t, routing: _r, ...customer }) => customer,
    ),
    countries: Object.fromEntries(book.map((customer) => [customer.id, customer.country])),
    customerNumbers: Object.fromEntries(book.map((customer) => [customer.id, customer.customerNumber])),
    routing: Object.fromEntries(
      book.filter((c) => c.routing).map((customer) => [customer.id, customer.routing]),
    ),
    purchaseOrders,
    invoices,
  }
}

const [seed, total, out] = process.argv.slice(2)
if (!seed || !total || !out) throw new Error('usage: generate-matching-book.ts <seed> <invoices> <out.json>')
writeFileSync(out, `${JSON.stringify(generate(Number(seed), Number(total)), null, 1)}\n`)
