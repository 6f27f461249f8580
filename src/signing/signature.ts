import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto'

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

/** Signs a delivery: the one implementation, used by the sandbox, tests and outbound app events. */
export function signPayload({ payload, secret, timestamp }: SignPayloadParams): string {
  if (!Number.isSafeInteger(timestamp)) throw new RangeError('timestamp must be whole unix seconds')
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(toBytes(payload)).digest('hex')
  return `t=${timestamp},v1=${digest}`
}

export type VerifySignatureParams = {
  /** The raw request body, exactly as received. */
  payload: unknown
  /** The Service-Signature header value. */
  header: string | string[] | undefined | null
  /** Accepted secrets, newest first; any one of them may have signed (rotation). */
  secrets: string | readonly string[]
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

/** Verifies one delivery with the secrets and tolerance its verifier was created with. */
export type SignatureVerifier = (
  delivery: Pick<VerifySignatureParams, 'payload' | 'header' | 'now'>,
) => VerifiedSignature

const HEX_SHA256 = /^[0-9a-f]{64}$/

type ParsedHeader = { timestamp: number; rawTimestamp: string; signatures: Buffer[] }

function malformed(message: string): SignatureVerificationError {
  return new SignatureVerificationError('malformed_header', message)
}

function parseHeader(header: VerifySignatureParams['header']): ParsedHeader {
  const value: unknown = Array.isArray(header) ? header[0] : header
  if (value === undefined || value === null || value === '') {
    throw new SignatureVerificationError('missing_header', 'No Service-Signature header on the request.')
  }
  if (typeof value !== 'string') throw malformed('The Service-Signature header is not a string.')
  if (value.length > 8192) throw malformed('The Service-Signature header is longer than 8192 characters.')
  let rawTimestamp: string | undefined
  const signatures: Buffer[] = []
  for (const part of value.split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0) throw malformed('The Service-Signature header must look like t=<unix>,v1=<hex>.')
    const key = part.slice(0, eq).trim()
    const item = part.slice(eq + 1).trim()
    if (key === 't') {
      if (rawTimestamp !== undefined || !/^\d{1,12}$/.test(item)) {
        throw malformed('The Service-Signature header needs exactly one t=<unix seconds>.')
      }
      rawTimestamp = item
    } else if (key === 'v1') {
      // A v1 that is not a SHA-256 hex digest can never match; skipping it keeps the compare constant-length.
      if (HEX_SHA256.test(item)) signatures.push(Buffer.from(item, 'hex'))
    }
    // Unknown schemes (v0, v2, …) are skipped so a sender can add new ones without breaking receivers.
  }
  if (rawTimestamp === undefined)
    throw malformed('The Service-Signature header has no t=<unix seconds> timestamp.')
  if (signatures.length === 0) {
    throw new SignatureVerificationError(
      'no_signature',
      'The Service-Signature header carries no v1 signature this receiver can check.',
    )
  }
  return { timestamp: Number(rawTimestamp), rawTimestamp, signatures }
}

/**
 * Creates a verifier for a fixed set of secrets, with their HMAC keys prepared once (the receiver's hot path).
 * Every v1 signature is compared with every secret in constant time; timestamps older or newer than the
 * tolerance are refused.
 */
export function createSignatureVerifier(
  options: Pick<VerifySignatureParams, 'secrets' | 'toleranceSeconds'>,
): SignatureVerifier {
  const { secrets, toleranceSeconds = 300 } = options
  const list: unknown[] = typeof secrets === 'string' ? [secrets] : Array.isArray(secrets) ? secrets : []
  const keys: { key: KeyObject; index: number }[] = []
  list.forEach((secret, index) => {
    if (typeof secret === 'string' && secret.length > 0)
      keys.push({ key: createSecretKey(secret, 'utf8'), index })
  })
  return ({ payload, header, now }) => {
    if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
      throw new SignatureVerificationError(
        'parsed_body',
        'The payload must be the raw request body (string or bytes), not a parsed object. ' +
          'Was the raw body passed, unparsed? Mount the webhook handler before express.json().',
      )
    }
    if (keys.length === 0) {
      throw new SignatureVerificationError(
        'no_secret',
        'No webhook secret is configured; set WEBHOOK_SECRETS to the secret the bank returned at registration.',
      )
    }
    const parsed = parseHeader(header)
    const nowMs = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : Number.NaN
    // NaN (an invalid `now` or tolerance) fails this test, so it refuses rather than accepts.
    if (!(Math.abs(Math.floor(nowMs / 1000) - parsed.timestamp) <= toleranceSeconds)) {
      throw new SignatureVerificationError(
        'timestamp_outside_tolerance',
        `The signature timestamp is more than ${toleranceSeconds}s away from now; check the clock or a replay.`,
      )
    }
    const body = toBytes(payload)
    let matched = -1
    for (const { key, index } of keys) {
      const expected = createHmac('sha256', key).update(`${parsed.rawTimestamp}.`).update(body).digest()
      for (const signature of parsed.signatures) {
        // Every pair is compared, with no early exit, so timing does not reveal which secret matched.
        if (timingSafeEqual(expected, signature) && matched === -1) matched = index
      }
    }
    if (matched === -1) {
      throw new SignatureVerificationError(
        'signature_mismatch',
        'No signature matches the body with any configured secret. Was the raw body passed, unparsed, ' +
          'and is WEBHOOK_SECRETS the secret of this registration?',
      )
    }
    return { timestamp: parsed.timestamp, secretIndex: matched }
  }
}

/**
 * Verifies a delivery's Service-Signature against the raw body.
 * @throws SignatureVerificationError, and nothing else, for any input
 */
export function verifySignature(params: VerifySignatureParams): VerifiedSignature {
  return createSignatureVerifier(params)(params)
}
