/** ISO 4217 codes this Node knows (ICU's list, historic codes included). */
const ISO_4217: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'))

/**
 * A currency as the bank or a person wrote it, trimmed and upper-cased, when it is an ISO 4217 code; null otherwise.
 * Thresholds are looked up by this, never by the bank's raw string (issue 26): ` usd` is USD, `US D` is nothing.
 */
export function normalizeCurrency(value: string | null | undefined): string | null {
  const code = (value ?? '').trim().toUpperCase()
  return /^[A-Z]{3}$/.test(code) && ISO_4217.has(code) ? code : null
}
