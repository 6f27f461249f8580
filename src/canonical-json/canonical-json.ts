/**
 * JSON with object keys sorted at every depth and undefined members left out, so a value serialises the same
 * however it was built and after a round trip through JSONB (which reorders keys). The one implementation: audit
 * hashes, request fingerprints and the sandbox's idempotency keys depend on its exact bytes. An undefined value
 * (top level or in an array) is written `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const object = value as Record<string, unknown>
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`
}
