import { randomBytes } from 'node:crypto'

/** A caller's id is kept only as a plain token: it goes into headers, answer bodies and log lines. */
const PLAIN_TOKEN = /^[\w.-]{1,128}$/

// An id needs only be unique: a random prefix drawn once per process and a counter, not a random draw per request.
const prefix = `req_${randomBytes(6).toString('hex')}-`
let issued = 0

/** A fresh request id, e.g. `req_3f9a0c1d2e4b-1a7`: unique, not a format to parse. */
export function newRequestId(): string {
  return prefix + (++issued).toString(36)
}

/** The caller's `X-Request-Id` when it is a plain token of up to 128 characters, else a fresh one. */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && PLAIN_TOKEN.test(incoming) ? incoming : newRequestId()
}
