import { Decimal } from 'decimal.js'
import type { PaymentIdentifier } from '../../api-client/index.js'
import type { Random } from '../random.js'
import type { AccountRecord, ConnectionRecord } from '../state.js'
import { abaRoutingNumber, digits, iban } from './bank-numbers.js'

type Template = {
  type: AccountRecord['type']
  currency: string
  name: string
  officialName: string
  /** Range of the opening ledger balance, in whole units. */
  opening: [number, number]
  reportsBalances: boolean
  exposesBalances: boolean
  identifiers: (random: Random, bankCode: string) => { ids: PaymentIdentifier[]; last4: string }
}

function usAch(random: Random) {
  // Leading zeros on purpose: account numbers are strings and must keep them.
  const accountNumber = `000${digits(random, 7)}`
  return {
    ids: [
      {
        scheme: 'us_ach' as const,
        countryCode: 'US',
        currency: 'USD',
        details: { routingNumber: abaRoutingNumber(random), accountNumber },
      },
    ],
    last4: accountNumber.slice(-4),
  }
}

const OPERATING: Template = {
  type: 'checking',
  currency: 'USD',
  name: 'Operating Account',
  officialName: 'Business Analysis Checking',
  opening: [80_000, 450_000],
  reportsBalances: true,
  exposesBalances: true,
  identifiers: usAch,
}

// A sterling account whose bank does not expose balances: the API shows null balances, rows are derived.
const STERLING: Template = {
  type: 'checking',
  currency: 'GBP',
  name: 'GBP Collections',
  officialName: 'Sterling Business Current Account',
  opening: [20_000, 150_000],
  reportsBalances: false,
  exposesBalances: false,
  identifiers: (random, bankCode) => {
    const sortCode = `0${digits(random, 5)}`
    const accountNumber = `0${digits(random, 7)}`
    const ids: PaymentIdentifier[] = [
      {
        scheme: 'uk_sort_code_account_number',
        countryCode: 'GB',
        currency: 'GBP',
        details: { sortCode, accountNumber },
      },
      {
        scheme: 'iban',
        countryCode: 'GB',
        currency: 'GBP',
        details: { iban: iban('GB', `${bankCode}${sortCode}${accountNumber}`), bic: `${bankCode}GB2L` },
      },
    ]
    return { ids, last4: accountNumber.slice(-4) }
  },
}

const EXTRAS: Template[] = [
  {
    type: 'checking',
    currency: 'EUR',
    name: 'EUR Operating',
    officialName: 'Euro Business Account',
    opening: [30_000, 250_000],
    reportsBalances: false,
    exposesBalances: true,
    identifiers: (random, bankCode) => {
      const accountNumber = `00${digits(random, 8)}`
      return {
        ids: [
          {
            scheme: 'iban',
            countryCode: 'DE',
            currency: 'EUR',
            details: { iban: iban('DE', `${digits(random, 8)}${accountNumber}`), bic: `${bankCode}DEFFXXX` },
          },
        ],
        last4: accountNumber.slice(-4),
      }
    },
  },
  {
    type: 'savings',
    currency: 'USD',
    name: 'Reserve Savings',
    officialName: 'Commercial Premium Savings',
    opening: [250_000, 2_000_000],
    reportsBalances: true,
    exposesBalances: true,
    identifiers: usAch,
  },
  {
    type: 'creditCard',
    currency: 'USD',
    name: 'Corporate Card',
    officialName: 'Business Platinum Card',
    opening: [-8_000, -500],
    reportsBalances: true,
    exposesBalances: true,
    identifiers: (random) => ({ ids: [], last4: digits(random, 4) }),
  },
  {
    type: 'moneyMarket',
    currency: 'USD',
    name: 'Liquidity Money Market',
    officialName: 'Institutional Money Market Account',
    opening: [500_000, 3_000_000],
    reportsBalances: true,
    exposesBalances: true,
    identifiers: usAch,
  },
]

/** Four letters standing for the bank in IBANs and BICs. */
function bankCodeOf(institutionName: string | null): string {
  const letters = (institutionName ?? '').toUpperCase().replace(/[^A-Z]/g, '')
  return (letters + 'SBXB').slice(0, 4)
}

/**
 * The 2–4 accounts a newly activated connection discovers: always a USD operating account (us_ach) and a GBP
 * account (sort code + IBAN, balances not exposed), then up to two of EUR (IBAN + BIC), savings, credit card and
 * money market, so every payment identifier scheme appears on every connection.
 */
export function generateAccounts(
  random: Random,
  connection: Pick<ConnectionRecord, 'id' | 'orgId' | 'entityId' | 'institutionName' | 'createdAt'>,
  openingDate: string,
): AccountRecord[] {
  const extras = [...EXTRAS]
  const chosen = [OPERATING, STERLING]
  const extraCount = random.int(0, 2)
  for (let i = 0; i < extraCount; i++) chosen.push(extras.splice(random.int(0, extras.length - 1), 1)[0]!)
  const bankCode = bankCodeOf(connection.institutionName)
  return chosen.map((template) => {
    const { ids, last4 } = template.identifiers(random, bankCode)
    const cents = random.int(template.opening[0] * 100, template.opening[1] * 100)
    return {
      id: random.uuid(),
      connectionId: connection.id,
      type: template.type,
      currency: template.currency,
      name: template.name,
      status: 'open',
      createdAt: connection.createdAt.toISOString(),
      updatedAt: connection.createdAt.toISOString(),
      officialName: template.officialName,
      maskedNumber: `****${last4}`,
      accountNumber: null,
      routingNumber: null,
      swiftBic: null,
      paymentIdentifiers: ids,
      currentBalance: null,
      availableBalance: null,
      balanceAsOf: null,
      metadata: {},
      orgId: connection.orgId,
      entityId: connection.entityId,
      openingBalance: new Decimal(cents).div(100).toFixed(2),
      openingDate,
      reportsBalances: template.reportsBalances,
      exposesBalances: template.exposesBalances,
    }
  })
}
