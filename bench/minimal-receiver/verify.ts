import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto'

/**
 * The least a receiver must check of a `Service-Signature: t=<unix>,v1=<hex>` header: a timestamp within 300 s
 * and an HMAC-SHA256 of "<t>.<raw body>" equal, in constant time, to one of the v1 values. node:crypto only, so
 * the baseline owes nothing to bankrec's code.
 */
export function createMinimalVerifier(secret: string): (header: unknown, body: Buffer) => boolean {
  const key = createSecretKey(secret, 'utf8')
  return (header, body) => {
    if (typeof header !== 'string' || header.length > 8192) return false
    let t: string | undefined
    const candidates: Buffer[] = []
    for (const part of header.split(',')) {
      const eq = part.indexOf('=')
      if (eq <= 0) return false
      const name = part.slice(0, eq)
      const value = part.slice(eq + 1)
      if (name === 't') t = value
      else if (name === 'v1' && value.length === 64) candidates.push(Buffer.from(value, 'hex'))
    }
    if (t === undefined || !/^\d{1,12}$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > 300)
      return false
    const expected = createHmac('sha256', key).update(`${t}.`).update(body).digest()
    return candidates.some((candidate) => candidate.length === 32 && timingSafeEqual(candidate, expected))
  }
}
