import { Decimal } from 'decimal.js'

/**
 * The decimal places of a currency's minor unit (ISO 4217, as the runtime's ICU data has them): JPY 0, EUR 2,
 * KWD 3. A code outside ISO 4217 (USDC and other tokens an invoice may carry) gets 2.
 */
export function currencyDecimals(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    )
  } catch {
    return 2
  }
}

/**
 * An amount with its currency's decimals, never rounded: an amount finer than the minor unit (a 0.001 USD
 * test payment) keeps its digits, since an import file must not move money. `comma` for DATEV's decimal comma.
 */
export function amountIn(value: Decimal.Value, currency: string, separator: '.' | ',' = '.'): string {
  const amount = new Decimal(value)
  const text = amount.toFixed(Math.max(currencyDecimals(currency), amount.decimalPlaces()))
  return separator === '.' ? text : text.replace('.', ',')
}
