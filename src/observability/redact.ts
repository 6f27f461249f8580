/** What a censored value becomes. */
export const CENSOR = '[redacted]'

/**
 * Keys whose values never reach a log line, at any depth, compared in lower case without `_` and `-` (so
 * `KIT_API_TOKEN`, `apiKey`, `x-api-key`, `set-cookie` and `Service-Signature` all match): secrets, tokens,
 * passwords, cookies, credentials, signatures, connection strings, and the URL-valued settings that carry a
 * secret of their own (a Slack webhook's path is its token; database and Redis URLs hold passwords).
 */
const SECRET_KEY =
  /password|passwd|secret|token|apikey|authorization|cookie|credential|signature|connectionstring|privatekey|(webhook|database|redis|slack)url$/

/** `scheme://user:password@` in any logged string keeps the user and loses the password. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^@\s/]*@/gi

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ''))
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown
  return Array.isArray(value) || proto === Object.prototype || proto === null
}

/**
 * A copy of a log line's object with every secret-named key censored at any depth and passwords cut out of URLs.
 * Only plain objects and arrays are walked (errors, dates and class instances go to pino's serializers as they
 * are); the input is never changed, and a cycle is cut rather than followed.
 */
export function redactSecrets<T>(value: T): T {
  const seen = new WeakSet<object>()
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string')
      return item.includes('://') ? item.replace(URL_PASSWORD, `$1${CENSOR}@`) : item
    if (typeof item !== 'object' || item === null || !isPlain(item)) return item
    if (seen.has(item)) return '[circular]'
    seen.add(item)
    if (Array.isArray(item)) return item.map(walk)
    const copy: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(item)) copy[key] = isSecretKey(key) ? CENSOR : walk(child)
    return copy
  }
  return walk(value) as T
}
