import { z } from 'zod'
import {
  BalanceString,
  Fields,
  IsoDateTime,
  Metadata,
  PageParams,
  Uuid,
  listResponse,
  type ListResponse,
} from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { listAll, listPages } from './pagination.js'
import { pathSegment, validateParams } from './validate-params.js'

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
export type PartialAccount = z.infer<typeof PartialAccount>

export const AccountListParams = PageParams.extend({
  connectionId: Uuid.optional(),
  type: AccountType.optional(),
  currency: CurrencyCode.optional(),
  status: AccountStatus.optional(),
  fields: Fields.optional(),
})
export type AccountListParams = z.input<typeof AccountListParams>

export const AccountGetParams = z.object({ fields: Fields.nullish() })
export type AccountGetParams = z.input<typeof AccountGetParams>

/** With a sparse fieldset only the named fields and the identifiers come back. */
export type AccountFor<P> = P extends { fields: string } ? PartialAccount : Account

const AccountList = listResponse(Account)
const PartialAccountList = listResponse(PartialAccount)

/** accounts.list/get, plus listAll and listPages. */
export function createAccountsResource(http: HttpClient) {
  /** GET /v1/accounts: one page, filtered by connectionId, type, currency or status; `fields` for a subset. */
  async function list<P extends AccountListParams = AccountListParams>(
    params: P = {} as P,
    options?: CallOptions,
  ): Promise<ListResponse<AccountFor<P>>> {
    const query = validateParams(AccountListParams, params)
    const schema = query.fields ? PartialAccountList : AccountList
    return http.request({ method: 'GET', path: '/v1/accounts', query, schema, options }) as Promise<
      ListResponse<AccountFor<P>>
    >
  }

  return {
    list,
    listAll: <P extends AccountListParams = AccountListParams>(params: P = {} as P, options?: CallOptions) =>
      listAll<P, AccountFor<P>>(list, params, options),
    listPages: <P extends AccountListParams = AccountListParams>(
      params: P = {} as P,
      options?: CallOptions,
    ) => listPages<P, AccountFor<P>>(list, params, options),
    /** GET /v1/accounts/{accountId}; `fields` for a subset. */
    async get<P extends AccountGetParams = AccountGetParams>(
      accountId: string,
      params: P = {} as P,
      options?: CallOptions,
    ): Promise<AccountFor<P>> {
      const id = pathSegment('accountId', accountId)
      const query = validateParams(AccountGetParams, params)
      const schema = query.fields ? PartialAccount : Account
      return http.request({ method: 'GET', path: `/v1/accounts/${id}`, query, schema, options }) as Promise<
        AccountFor<P>
      >
    },
  }
}
export type AccountsResource = ReturnType<typeof createAccountsResource>
