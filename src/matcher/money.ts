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

const POWERS = Array.from({ length: SCALE + 1 }, (_, power) => 10n ** BigInt(power))
// Below 10^15 a count of the smallest written unit is an exact JS integer.
const EXACT_DIGITS = 15

/** Plain `[-]digits[.digits]` with at most 15 digits, read without a regular expression; null otherwise. */
function plainUnits(text: string): bigint | null {
  const negative = text.charCodeAt(0) === 45
  let digits = 0
  let decimals = -1
  let value = 0
  for (let at = negative ? 1 : 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code === 46 && decimals < 0) {
      decimals = 0
      continue
    }
    if (code < 48 || code > 57) return null
    value = value * 10 + code - 48
    digits++
    if (decimals >= 0) decimals++
  }
  if (digits === 0 || digits > EXACT_DIGITS || decimals > SCALE) return null
  const units = BigInt(value) * (POWERS[SCALE - Math.max(decimals, 0)] as bigint)
  return negative ? -units : units
}

// A run parses the same amount in turn (the caller's check of a set's total, then the payment): the last is kept.
let lastAmount: string | null = null
let lastAmountUnits = 0n

export function toUnits(value: Money): bigint {
  if (value === lastAmount) return lastAmountUnits
  const plain = typeof value === 'string' ? plainUnits(value) : null
  if (plain !== null) {
    lastAmount = value as string
    lastAmountUnits = plain
    return plain
  }
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

// A run formats the same amount in turn (the payment in its evidence, then as the invoice's amount paid), and
// bigint to string is the slow part: the last one is kept.
let lastUnits = 0n
let lastText = '0'

/** Plain decimal notation without trailing zeros: the form allocations and states carry. */
export function formatUnits(units: bigint): string {
  if (units === 0n) return '0'
  if (units === lastUnits) return lastText
  lastUnits = units
  lastText = formatted(units)
  return lastText
}

function formatted(units: bigint): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(SCALE + 1, '0')
  const point = digits.length - SCALE
  let end = digits.length
  while (end > point && digits.charCodeAt(end - 1) === 48) end--
  const number =
    end > point ? `${digits.slice(0, point)}.${digits.slice(point, end)}` : digits.slice(0, point)
  return negative ? `-${number}` : number
}

const CENT = 10n ** BigInt(SCALE - 2)

/**
 * A positive amount as a count of hundredths (cents) when that count is exact and a safe JS integer, else -1. Two
 * amounts whose counts are not -1 are equal exactly when their counts are: compared without reading either bigint.
 */
export function centsOf(units: bigint): number {
  if (units <= 0n || units % CENT !== 0n) return -1
  const cents = Number(units / CENT)
  return Number.isSafeInteger(cents) ? cents : -1
}

export function minUnits(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

export function toDecimal(value: Money): Decimal {
  return value instanceof Decimal ? value : new Decimal(value)
}
