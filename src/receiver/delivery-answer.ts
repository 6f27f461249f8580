import type { ServerResponse } from 'node:http'
import type { SignatureFailureReason } from '../signing/index.js'
import type { EnvelopeRefusal } from '../webhook-envelope/index.js'
import type { DeliveryOutcome } from './metrics.js'

// The answer to a delivery: its status and body for every outcome, and how it is written. Pure but for
// writeAnswer; the status table also covers the envelope's refusals (EnvelopeRefusal).

/** The answer to one delivery, ready to write. */
export type DeliveryAnswer = {
  status: number
  requestId: string
  outcome: DeliveryOutcome
  /** `ok`, or the stable code of the error (the signature reason for a verification failure). */
  reason: string
  /** Serialized JSON body. */
  body: string
  /** The request body was not read to its end, so the connection cannot be reused. */
  closeConnection: boolean
}

export type ReceiverErrorCode =
  | SignatureFailureReason
  | EnvelopeRefusal
  | 'unqueueable_event'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_request'
  | 'queue_unavailable'
  | 'internal_error'
  | 'not_found'
  | 'method_not_allowed'

/**
 * Status per error code. A missing header or an unverifiable signature is unauthenticated (401); a header that
 * cannot be parsed is a malformed request (400); a body the app parsed before us, or no secret, is our own setup
 * error (500), which the sender retries while the developer fixes it. A body that cannot be stored is 400; an
 * event the queue refused while the rest of its batch was written is 422 (it would fail the same way again).
 */
const STATUS: Record<ReceiverErrorCode, number> = {
  missing_header: 401,
  no_signature: 401,
  timestamp_outside_tolerance: 401,
  signature_mismatch: 401,
  malformed_header: 400,
  invalid_utf8: 400,
  invalid_json: 400,
  not_an_object: 400,
  too_deep: 400,
  unstorable_text: 400,
  unqueueable_event: 422,
  invalid_request: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  queue_unavailable: 503,
  parsed_body: 500,
  no_secret: 500,
  internal_error: 500,
  not_found: 404,
  method_not_allowed: 405,
}

export function statusOf(code: ReceiverErrorCode): number {
  return STATUS[code]
}

function outcomeOf(status: number): DeliveryOutcome {
  if (status === 503) return 'unavailable'
  return status >= 500 ? 'error' : 'rejected'
}

/** An error answer: `{ error: { code, message, requestId, details? } }`. Messages never carry secrets. */
export function errorAnswer(
  code: ReceiverErrorCode,
  message: string,
  requestId: string,
  options: { details?: { path: string; message: string }[]; closeConnection?: boolean } = {},
): DeliveryAnswer {
  const status = statusOf(code)
  const error = options.details?.length
    ? { code, message, requestId, details: options.details }
    : { code, message, requestId }
  return {
    status,
    requestId,
    outcome: outcomeOf(status),
    reason: code,
    body: JSON.stringify({ error }),
    closeConnection: options.closeConnection ?? false,
  }
}

/** 202 for a newly queued event (also when ignored), 200 for one already queued. */
export function acceptedAnswer(
  eventId: string,
  result: 'queued' | 'duplicate',
  ignored: string | undefined,
  requestId: string,
): DeliveryAnswer {
  // The body is JSON.stringify of { status, eventId, reason? }, spelled out: the same bytes without building and
  // walking an object on every delivery (delivery-answer.test.ts compares the two).
  const id = JSON.stringify(eventId)
  if (result === 'duplicate') {
    return {
      status: 200,
      requestId,
      outcome: 'duplicate',
      reason: 'duplicate',
      body: `{"status":"duplicate","eventId":${id}}`,
      closeConnection: false,
    }
  }
  return {
    status: 202,
    requestId,
    outcome: ignored ? 'ignored' : 'queued',
    reason: ignored ?? 'ok',
    body: ignored
      ? `{"status":"ignored","eventId":${id},"reason":${JSON.stringify(ignored)}}`
      : `{"status":"queued","eventId":${id}}`,
    closeConnection: false,
  }
}

/** Writes an answer to the response, with its request id; closes the connection when the body was not read. */
export function writeAnswer(res: ServerResponse, answer: DeliveryAnswer): void {
  // Headers as a flat list: written as they are, where an object is walked key by key.
  const headers = [
    'content-type',
    'application/json; charset=utf-8',
    'content-length',
    String(Buffer.byteLength(answer.body)),
    'x-request-id',
    answer.requestId,
  ]
  if (answer.closeConnection) headers.push('connection', 'close')
  res.writeHead(answer.status, headers)
  res.end(answer.body)
}
