import { Decimal } from 'decimal.js'

/** A money amount as the caller holds it: a decimal string or a `Decimal`, never a JS number. */
export type Money = Decimal | string

/**
 * Inside the matcher amounts are exact integers of 10^-18 units (bigint): as exact as `Decimal` for every
 * amount with at most 18 decimal places (wei included), and an order of magnitude faster, which the matching
 * throughput target needs. More decimal places than that are refused, never rounded.
 */
export const SCALE = 18
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/

export function toUnits(value: Money): bigint {
  const text = value instanceof Decimal ? value.toFixed() : value
  let match = DECIMAL.exec(text)
  if (!match && typeof value === 'string') match = DECIMAL.exec(new Decimal(value).toFixed())
  const [, sign, whole = '', fraction = ''] = match ?? []
  if (!match || whole.length + fraction.length === 0) throw new RangeError(`not a decimal amount: "${text}"`)
  if (fraction.length > SCALE) {
    throw new RangeError(
      `amount "${text}" has more than ${SCALE} decimal places; the matcher never rounds money`,
    )
  }
  const units = BigInt(`${whole || '0'}${fraction.padEnd(SCALE, '0')}`)
  return sign === '-' ? -units : units
}

/** Plain decimal notation without trailing zeros: the form allocations and states carry. */
export function formatUnits(units: bigint): string {
  if (units === 0n) return '0'
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(SCALE + 1, '0')
  const point = digits.length - SCALE
  let end = digits.length
  while (end > point && digits.charCodeAt(end - 1) === 48) end--
  const number =
    end > point ? `${digits.slice(0, point)}.${digits.slice(point, end)}` : digits.slice(0, point)
  return negative ? `-${number}` : number
}

export function minUnits(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

export function toDecimal(value: Money): Decimal {
  return value instanceof Decimal ? value : new Decimal(value)
}
