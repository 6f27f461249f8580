import { createHmac, timingSafeEqual } from 'node:crypto'

/** The header every delivery carries: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const SIGNATURE_HEADER = 'service-signature'

export type SignatureFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_signature'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'parsed_body'
  | 'no_secret'

/** Thrown by verifySignature; `reason` is stable and safe to branch on, the message says what to do. */
export class SignatureVerificationError extends Error {
  readonly code = 'signature_verification_failed'
  constructor(
    readonly reason: SignatureFailureReason,
    message: string,
  ) {
    super(message)
    this.name = 'SignatureVerificationError'
  }
}

export type Payload = string | Uint8Array

export type SignPayloadParams = {
  payload: Payload
  secret: string
  /** Unix seconds. */
  timestamp: number
}

function toBytes(payload: Payload): Buffer {
  return typeof payload === 'string'
    ? Buffer.from(payload, 'utf8')
    : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)
}

function hmacHex(secret: string, timestamp: string, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')
}

/** Signs a delivery: the one implementation, used by the sandbox, tests and outbound app events. */
export function signPayload({ payload, secret, timestamp }: SignPayloadParams): string {
  if (!Number.isSafeInteger(timestamp)) throw new RangeError('timestamp must be whole unix seconds')
  return `t=${timestamp},v1=${hmacHex(secret, String(timestamp), toBytes(payload))}`
}

export type VerifySignatureParams = {
  /** The raw request body, exactly as received. */
  payload: unknown
  /** The Service-Signature header value. */
  header: string | string[] | undefined | null
  /** Accepted secrets, newest first; any one of them may have signed (rotation). */
  secrets: readonly string[]
  /** How far the timestamp may be from now, in either direction. @defaultValue 300 */
  toleranceSeconds?: number
  /** @defaultValue the current time */
  now?: Date
}

export type VerifiedSignature = {
  timestamp: number
  /** Index into `secrets` of the secret that matched. */
  secretIndex: number
}

const HEX_SHA256 = /^[0-9a-f]{64}$/

type ParsedHeader = { timestamp: number; rawTimestamp: string; signatures: string[] }

function parseHeader(header: VerifySignatureParams['header']): ParsedHeader {
  const value = Array.isArray(header) ? header[0] : header
  if (value === undefined || value === null || value === '') {
    throw new SignatureVerificationError('missing_header', 'No Service-Signature header on the request.')
  }
  if (typeof value !== 'string' || value.length > 8192) {
    throw new SignatureVerificationError('malformed_header', 'The Service-Signature header is not a string.')
  }
  let rawTimestamp: string | undefined
  const signatures: string[] = []
  for (const part of value.split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0) {
      throw new SignatureVerificationError(
        'malformed_header',
        'The Service-Signature header must look like t=<unix>,v1=<hex>.',
      )
    }
    const key = part.slice(0, eq).trim()
    const item = part.slice(eq + 1).trim()
    if (key === 't') {
      if (rawTimestamp !== undefined || !/^\d{1,12}$/.test(item)) {
        throw new SignatureVerificationError(
          'malformed_header',
          'The Service-Signature header needs exactly one t=<unix seconds>.',
        )
      }
      rawTimestamp = item
    } else if (key === 'v1') {
      // A v1 that is not a SHA-256 hex digest can never match; skipping it keeps the compare constant-length.
      if (HEX_SHA256.test(item)) signatures.push(item)
    }
    // Unknown schemes (v0, v2, …) are skipped so a sender can add new ones without breaking receivers.
  }
  if (rawTimestamp === undefined) {
    throw new SignatureVerificationError(
      'malformed_header',
      'The Service-Signature header has no t=<unix seconds> timestamp.',
    )
  }
  if (signatures.length === 0) {
    throw new SignatureVerificationError(
      'no_signature',
      'The Service-Signature header carries no v1 signature this receiver can check.',
    )
  }
  return { timestamp: Number(rawTimestamp), rawTimestamp, signatures }
}

/**
 * Verifies a delivery's Service-Signature against the raw body. Every v1 signature is compared with every secret
 * in constant time; timestamps older or newer than the tolerance are refused.
 * @throws SignatureVerificationError, and nothing else, for any input
 */
export function verifySignature(params: VerifySignatureParams): VerifiedSignature {
  const { payload, secrets, toleranceSeconds = 300, now = new Date() } = params
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new SignatureVerificationError(
      'parsed_body',
      'The payload must be the raw request body (string or bytes), not a parsed object. ' +
        'Was the raw body passed, unparsed? Mount the webhook handler before express.json().',
    )
  }
  const usable = Array.isArray(secrets) ? secrets.filter((s) => typeof s === 'string' && s.length > 0) : []
  if (usable.length === 0) {
    throw new SignatureVerificationError(
      'no_secret',
      'No webhook secret is configured; set WEBHOOK_SECRETS to the secret the bank returned at registration.',
    )
  }
  const parsed = parseHeader(params.header)
  const nowSeconds = Math.floor(now.getTime() / 1000)
  if (!(Math.abs(nowSeconds - parsed.timestamp) <= toleranceSeconds)) {
    throw new SignatureVerificationError(
      'timestamp_outside_tolerance',
      `The signature timestamp is more than ${toleranceSeconds}s away from now; check the clock or a replay.`,
    )
  }
  const body = toBytes(payload)
  let matched = -1
  for (let index = 0; index < usable.length; index++) {
    const expected = Buffer.from(hmacHex(usable[index]!, parsed.rawTimestamp, body), 'hex')
    for (const signature of parsed.signatures) {
      // Every pair is compared, with no early exit, so timing does not reveal which secret matched.
      if (timingSafeEqual(expected, Buffer.from(signature, 'hex')) && matched === -1) matched = index
    }
  }
  if (matched === -1) {
    throw new SignatureVerificationError(
      'signature_mismatch',
      'No signature matches the body with any configured secret. Was the raw body passed, unparsed, ' +
        'and is WEBHOOK_SECRETS the secret of this registration?',
    )
  }
  return { timestamp: parsed.timestamp, secretIndex: secrets.indexOf(usable[matched]!) }
}
