import { z } from 'zod'
import { BalanceString, Fields, IsoDateTime, Metadata, PageParams, Uuid } from './common.js'

export const AccountType = z.enum([
  'checking',
  'savings',
  'moneyMarket',
  'creditCard',
  'loan',
  'investment',
  'wallet',
  'other',
  'unknown',
])
export const AccountStatus = z.enum(['open', 'closed', 'unknown'])
export const CurrencyCode = z.string().regex(/^[A-Z0-9]{3,12}$/, 'must be a currency or asset code')

export const PaymentIdentifierScheme = z.enum(['us_ach', 'uk_sort_code_account_number', 'iban'])

/** Every value is a string so leading zeros survive. details field names for UK and IBAN: docs/sandbox.md. */
export const PaymentIdentifier = z.looseObject({
  scheme: PaymentIdentifierScheme,
  countryCode: z.string(),
  currency: z.string(),
  details: z.record(z.string(), z.string().nullable()),
})
export type PaymentIdentifier = z.infer<typeof PaymentIdentifier>

export const Account = z.looseObject({
  id: Uuid,
  connectionId: Uuid,
  type: AccountType,
  currency: CurrencyCode,
  name: z.string(),
  status: AccountStatus,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  officialName: z.string().nullable(),
  maskedNumber: z.string().nullable(),
  accountNumber: z.null(),
  routingNumber: z.null(),
  swiftBic: z.null(),
  paymentIdentifiers: z.array(PaymentIdentifier),
  currentBalance: BalanceString.nullable(),
  availableBalance: BalanceString.nullable(),
  balanceAsOf: IsoDateTime.nullable(),
  metadata: Metadata.optional(),
})
export type Account = z.infer<typeof Account>

/** With fields=, only the requested fields plus the identifiers are present. */
export const PartialAccount = Account.partial().required({ id: true, connectionId: true })

export const AccountListParams = PageParams.extend({
  connectionId: Uuid.optional(),
  type: AccountType.optional(),
  currency: CurrencyCode.optional(),
  status: AccountStatus.optional(),
  fields: Fields.optional(),
})
export type AccountListParams = z.input<typeof AccountListParams>

export const AccountGetParams = z.object({ fields: Fields.nullish() })
