import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { DomainError, type DomainErrorKind } from '../../src/errors/index.js'
import { answerApiError, assignRequestId } from '../../src/sidecar/api-error.js'
import { TransferError } from '../../src/transfers/index.js'
import { MakerCheckerError } from '../../src/users/index.js'

function app(thrown?: () => Error) {
  const a = express()
  a.use(assignRequestId)
  a.post('/x', express.json({ limit: '1kb' }), (_req, res) => void res.json({ ok: true }))
  a.get('/thrown', () => {
    throw thrown!()
  })
  a.use(answerApiError(() => undefined))
  return a
}

describe('sidecar API errors', () => {
  it('answers malformed JSON with 400 and never echoes the body (it may hold a password)', async () => {
    const answer = await request(app())
      .post('/x')
      .set('content-type', 'application/json')
      .send('{"password": "hunter2-secret", oops')
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe('validation_error')
    expect(answer.body.error.requestId).toMatch(/^req_/)
    expect(JSON.stringify(answer.body)).not.toContain('hunter2')
  })

  it('answers an oversized body with 413', async () => {
    const answer = await request(app())
      .post('/x')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ blob: 'x'.repeat(5000) }))
    expect(answer.status).toBe(413)
    expect(answer.body.error.code).toBe('payload_too_large')
  })

  const statuses: Array<[DomainErrorKind, number]> = [
    ['invalid', 400],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['unprocessable', 422],
    ['unavailable', 502],
  ]
  it.each(statuses)(
    'answers a domain refusal of kind %s with %i, its code, message and details',
    async (kind, status) => {
      const details = [{ path: 'body.amount', message: 'must be positive' }]
      const answer = await request(
        app(() => new DomainError(kind, 'some_code', 'Do this instead.', details)),
      ).get('/thrown')
      expect(answer.status).toBe(status)
      expect(answer.body.error).toMatchObject({ code: 'some_code', message: 'Do this instead.', details })
    },
  )

  it('maps every domain module’s error through the same table (a transfer conflict, a maker-checker refusal)', async () => {
    const conflict = await request(
      app(() => new TransferError('conflict', 'transfer_not_retryable', 'No.')),
    ).get('/thrown')
    expect(conflict.status).toBe(409)
    const forbidden = await request(app(() => new MakerCheckerError('same_person', 'Someone else.'))).get(
      '/thrown',
    )
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'same_person'])
  })

  it('answers anything else with 500 and a message that reveals nothing', async () => {
    const answer = await request(app(() => new Error('password=hunter2'))).get('/thrown')
    expect(answer.status).toBe(500)
    expect(JSON.stringify(answer.body)).not.toContain('hunter2')
  })
})
