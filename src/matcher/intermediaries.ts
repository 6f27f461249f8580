import { nameKey } from './normalize-name.js'

/**
 * Payment intermediaries: they pay for many customers, so their name or account tells nothing about who paid and
 * is never learned as one customer's, nor verifies a payer.
 *
 * How to maintain this list: add the name as banks show it on the payer line (upper or lower case, with or
 * without the legal form), one entry per distinct word sequence; an entry matches a payer name that contains its
 * words in order (`Stripe` matches `STRIPE PAYMENTS EUROPE LTD`). Prefer a distinctive word sequence over a
 * common word (`Wise Payments`, not `Wise`, which is also a surname). Each group says why its members are here;
 * a new kind of intermediary gets its own group with a comment. Accounts that pay for several customers are
 * found from evidence as well (customer-directory.ts), so a group treasury need not be listed.
 */
export const INTERMEDIARIES: Readonly<Record<string, readonly string[]>> = {
  /** Card acquirers and payment service providers: their payouts bundle many buyers' payments. */
  'a payment service provider': [
    'Stripe',
    'Adyen',
    'PayPal',
    'Braintree',
    'Mollie',
    'Worldpay',
    'Checkout.com',
    'Checkout Ltd',
    'Square Inc',
    'Square Payments',
    'Block Inc',
    'Klarna',
    'GoCardless',
    'SumUp',
    'Shopify Payments',
    'Amazon Payments',
    'Paddle',
    'Razorpay',
    'Authorize.net',
    'Nexi',
    'Worldline',
    'Ingenico',
    'Viva Wallet',
    'Unzer',
    'Payone',
    'Computop',
    'Concardis',
    'Global Payments',
    'Elavon',
    'Afterpay',
    'Affirm',
    'Rapyd',
  ],
  /** Accounts-payable platforms and payment agents: they pay suppliers on behalf of many buyers. */
  'a payment agent': [
    'Bill.com',
    'BILL COM',
    'Tipalti',
    'Melio',
    'AvidXchange',
    'AvidPay',
    'Paymode',
    'Paymode-X',
    'Corpay',
    'Payoneer',
    'Wise Payments',
    'TransferWise',
    'Wise Business',
    'Airwallex',
    'Nvoicepay',
    'Billtrust',
    'Bottomline',
    'Coupa Pay',
    'Veem',
    'Western Union Business',
    'Ebury',
  ],
  /** Factors and invoice financiers: they pay the invoices of the customers whose receivables they bought. */
  'a factor': [
    'Factoring',
    'Invoice Finance',
    'Commercial Finance',
    'Bibby Financial',
    'Close Brothers Invoice',
    'Taulia',
    'C2FO',
    'Creditreform',
    'Coface Finanz',
  ],
}

type Entry = { words: string; kind: string }

let entries: Entry[] | null = null

/** The intermediary a payer's name names (by its folded words, `nameKey(...).plain`), and its kind; null for none. */
export function intermediaryOf(plain: string): Entry | null {
  entries ??= Object.entries(INTERMEDIARIES).flatMap(([kind, names]) =>
    names.flatMap((name) => {
      const words = nameKey(name)?.plain
      return words ? [{ words, kind }] : []
    }),
  )
  const padded = ` ${plain} `
  return entries.find((entry) => padded.includes(` ${entry.words} `)) ?? null
}

/** Whether a payer's name is a payment intermediary's: a person's match never teaches it as one customer's. */
export function isIntermediaryName(name: string | null | undefined): boolean {
  const parsed = nameKey(name)
  return parsed !== null && intermediaryOf(parsed.plain) !== null
}
