import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { answerApiError, assignRequestId } from '../../src/sidecar/api-error.js'

function app() {
  const a = express()
  a.use(assignRequestId)
  a.post('/x', express.json({ limit: '1kb' }), (_req, res) => void res.json({ ok: true }))
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
})
