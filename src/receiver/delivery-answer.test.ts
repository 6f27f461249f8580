import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { acceptedAnswer, errorAnswer, statusOf } from './delivery-answer.js'

describe('the answer to a delivery', () => {
  it('gives each error its status: unauthenticated 401, unstorable 400, our own setup 500, a full queue 503', () => {
    expect(statusOf('signature_mismatch')).toBe(401)
    expect(statusOf('malformed_header')).toBe(400)
    expect(statusOf('too_deep')).toBe(400)
    expect(statusOf('unqueueable_event')).toBe(422)
    expect(statusOf('payload_too_large')).toBe(413)
    expect(statusOf('parsed_body')).toBe(500)
    expect(statusOf('queue_unavailable')).toBe(503)
  })

  it('writes an error as { error: { code, message, requestId, details? } }, counted by its status', () => {
    const refused = errorAnswer('unstorable_text', 'No.', 'req-1', {
      details: [{ path: 'body.note', message: 'must not contain U+0000' }],
    })
    expect(refused).toMatchObject({ status: 400, outcome: 'rejected', reason: 'unstorable_text' })
    expect(JSON.parse(refused.body)).toEqual({
      error: {
        code: 'unstorable_text',
        message: 'No.',
        requestId: 'req-1',
        details: [{ path: 'body.note', message: 'must not contain U+0000' }],
      },
    })
    const empty = errorAnswer('invalid_json', 'No.', 'req-2', { details: [] })
    expect(JSON.parse(empty.body)).toEqual({
      error: { code: 'invalid_json', message: 'No.', requestId: 'req-2' },
    })
    expect(errorAnswer('queue_unavailable', 'Later.', 'r').outcome).toBe('unavailable')
    expect(errorAnswer('internal_error', 'Oops.', 'r').outcome).toBe('error')
    expect(errorAnswer('payload_too_large', 'Big.', 'r', { closeConnection: true }).closeConnection).toBe(
      true,
    )
  })

  it('answers 202 to a newly queued event, ignored or not, and 200 to one already queued', () => {
    expect(acceptedAnswer('evt_1', 'queued', undefined, 'r')).toMatchObject({
      status: 202,
      outcome: 'queued',
      reason: 'ok',
      body: JSON.stringify({ status: 'queued', eventId: 'evt_1' }),
    })
    expect(acceptedAnswer('evt_2', 'queued', 'reserved_type', 'r')).toMatchObject({
      status: 202,
      outcome: 'ignored',
      reason: 'reserved_type',
      body: JSON.stringify({ status: 'ignored', eventId: 'evt_2', reason: 'reserved_type' }),
    })
    expect(acceptedAnswer('evt_3', 'duplicate', 'unknown_type', 'r')).toMatchObject({
      status: 200,
      outcome: 'duplicate',
      reason: 'duplicate',
      body: JSON.stringify({ status: 'duplicate', eventId: 'evt_3' }),
    })
  })

  it('spells the 2xx bodies exactly as JSON.stringify of their object would, for any event id', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom(undefined, 'reserved_type', 'unknown_type'),
        (eventId, ignored) => {
          const queued = ignored
            ? { status: 'ignored', eventId, reason: ignored }
            : { status: 'queued', eventId }
          expect(acceptedAnswer(eventId, 'queued', ignored, 'r').body).toBe(JSON.stringify(queued))
          expect(acceptedAnswer(eventId, 'duplicate', ignored, 'r').body).toBe(
            JSON.stringify({ status: 'duplicate', eventId }),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })
})
