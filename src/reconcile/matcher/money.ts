import { Decimal } from 'decimal.js'

/** A money amount as the caller holds it: a decimal string or a `Decimal`, never a JS number. */
export type Money = Decimal | string

export const ZERO = new Decimal(0)

export function toDecimal(value: Money): Decimal {
  return value instanceof Decimal ? value : new Decimal(value)
}

/** Plain notation, no exponent, no trailing zeros: the form allocations and states carry. */
export function toAmountString(value: Decimal): string {
  return value.toFixed()
}
