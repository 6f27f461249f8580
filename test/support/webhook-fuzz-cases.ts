import { createHash, createHmac } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { seededRandom, type SeededRandom } from './chaos/seeded-random.js'

/**
 * Generated webhook deliveries for the receiver fuzz tests, each with the answers docs/receiver.md allows.
 * Signatures are made with node:crypto directly, not with the code under test.
 */

/** docs/receiver.md, "Verification" and "Answers": the status of every code (2xx: the body's status). */
export const DOCUMENTED_STATUS: Record<string, number> = {
  missing_header: 401,
  malformed_header: 400,
  no_signature: 401,
  timestamp_outside_tolerance: 401,
  signature_mismatch: 401,
  parsed_body: 500,
  no_secret: 500,
  unsupported_media_type: 415,
  payload_too_large: 413,
  invalid_request: 400,
  invalid_utf8: 400,
  invalid_json: 400,
  not_an_object: 400,
  too_deep: 400,
  unstorable_text: 400,
  queue_unavailable: 503,
  queued: 202,
  ignored: 202,
  duplicate: 200,
}

export type FuzzCase = {
  kind: string
  contentType: string | undefined
  /** Several values are sent as several header lines over HTTP; node joins them with ", " (as here, in-process). */
  signature: string | string[] | undefined
  body: Buffer
  /** The codes the documentation allows for this delivery. */
  expect: readonly string[]
  /** Set only for deliveries signed with a configured secret, in tolerance, with a valid envelope. */
  genuineId?: string
  /** Over HTTP: send the body chunked (no Content-Length). */
  chunked?: boolean
  /** Over HTTP: a Content-Encoding header (the receiver never decodes: the signature covers the bytes as sent). */
  contentEncoding?: string
}

export type FuzzOptions = {
  seed: number
  /** The receiver's configured secrets, newest first. */
  secrets: readonly string[]
  /** The receiver's clock, unix seconds. */
  now: number
  toleranceSeconds: number
  bodyLimitBytes: number
}

const GENUINE = ['queued', 'ignored', 'duplicate'] as const
const HEADER_REJECTIONS = [
  'missing_header',
  'malformed_header',
  'no_signature',
  'timestamp_outside_tolerance',
  'signature_mismatch',
]
const UNICODE = [
  'Zahlung für Rechnung № 42',
  'اختبار',
  '\u202eevil\u202c',
  'zero\u200bwidth',
  'e\u0301\u0301\u0301',
  '😀🏦💶',
  '支払い',
  '\ufeffbom inside',
  '\u2028line\u2029separators',
]
const HEADER_CODES = [
  ...Array.from({ length: 95 }, (_, i) => 32 + i),
  ...Array.from({ length: 128 }, (_, i) => 128 + i),
]

/** docs/receiver.md, "What the receiver accepts and why": the event id a receiver files an envelope under. */
function expectedEventId(event: Record<string, unknown>, body: Buffer): string {
  for (const name of [
    'id',
    'eventId',
    'event_id',
    'webhookEventId',
    'notificationId',
    'messageId',
    'message_id',
  ]) {
    const value = event[name]
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
    if (typeof value === 'string' && value.trim() !== '' && value.length <= 255) return value
  }
  return `body-sha256-${createHash('sha256').update(body).digest('hex')}`
}

export function hmacHeader(body: Buffer, secret: string, timestamp: number | string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')
  return `t=${timestamp},v1=${digest}`
}

/** Yields `count` cases, deterministic for a seed; genuine event ids are unique per seed. */
export function* webhookFuzzCases(options: FuzzOptions, count: number): Generator<FuzzCase> {
  const random = seededRandom(options.seed)
  const { now, toleranceSeconds: tolerance, bodyLimitBytes: limit } = options
  const secret = () => random.pick(options.secrets)
  const sign = (body: Buffer, key = secret(), t: number | string = now) => hmacHeader(body, key, t)
  const genuine: { id: string; body: Buffer }[] = []
  let serial = 0

  const envelope = (type: string, extra: Record<string, unknown> = {}): Record<string, unknown> => {
    const id = `evt_fuzz_${options.seed}_${serial++}`
    const data =
      type === 'test'
        ? { webhookId: `wh_${random.int(0, 1e6)}` }
        : type === 'transactions.sync_available'
          ? { connectionId: `con_${random.int(0, 1e6)}`, entityId: `ent_${random.int(0, 1e6)}` }
          : type === 'connection.status_changed'
            ? {
                connectionId: `con_${random.int(0, 1e6)}`,
                entityId: `ent_${random.int(0, 1e6)}`,
                previousStatus: 'active',
                status: random.pick(['reauthRequired', 'active', 'errored']),
                errorCode: null,
                errorMessage: null,
              }
            : { anything: random.next() }
    return { id, type, createdAt: new Date(now * 1000).toISOString(), apiVersion: 'v1', data, ...extra }
  }
  const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8')
  const garbage = (size: number) => Buffer.from(Array.from({ length: size }, () => random.int(0, 255)))
  const known = () => random.pick(genuine)
  const skewInside = () => random.pick([-1, 1]) * random.int(0, tolerance)
  const skewOutside = () =>
    random.pick([-1, 1]) * (tolerance + random.pick([1, 1, 2, random.int(1, 10_000_000)]))

  const genuineCase = (kind: string, body: Buffer, id: string, signature: string): FuzzCase => {
    genuine.push({ id, body })
    return { kind, contentType: 'application/json', signature, body, expect: GENUINE, genuineId: id }
  }
  const signed = (kind: string, body: Buffer, expect: readonly string[], extra: Partial<FuzzCase> = {}) => ({
    kind,
    contentType: 'application/json',
    signature: sign(body),
    body,
    expect,
    ...extra,
  })

  const makers: Array<() => FuzzCase | undefined> = [
    () => {
      const type = random.pick([
        'test',
        'transactions.sync_available',
        'connection.status_changed',
        'account.created',
        'transfer.status_changed',
        'invoice.paid',
        'x.' + random.int(0, 99),
      ])
      const event = envelope(type)
      return genuineCase('genuine', json(event), String(event.id), sign(json(event)))
    },
    () => {
      const event = envelope('test', { note: random.pick(UNICODE), [random.pick(UNICODE)]: random.next() })
      // Half with non-ASCII escaped as \uXXXX (surrogate pairs for astral characters), half as raw UTF-8.
      const text = JSON.stringify(event)
      const body = Buffer.from(
        random.chance(0.5)
          ? text
          : text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      )
      return genuineCase('genuine utf-8', body, String(event.id), sign(body))
    },
    () => {
      const event = envelope(random.pick(['test', 'account.updated']))
      const body = json(event)
      return genuineCase(
        'genuine, timestamp inside tolerance',
        body,
        String(event.id),
        sign(body, secret(), now + skewInside()),
      )
    },
    () => {
      const event = envelope('test')
      const body = json(event)
      const other = `t=${now},v1=${'0'.repeat(64)}`
      const header = sign(body).split(',')
      const parts = random.pick([
        [header[0], `v1=${'f'.repeat(64)}`, header[1]],
        [header[0], header[1], 'v0=legacy', 'v2=future'],
        [header[0], other.split(',')[1], `v1=${'A'.repeat(64)}`, header[1]],
      ])
      return genuineCase('genuine among other signatures', body, String(event.id), parts.join(','))
    },
    () => {
      // The body padded to exactly the limit is still accepted.
      const event = envelope('test', { pad: '' })
      const size = json(event).length
      if (size > limit) return undefined
      event.pad = 'p'.repeat(limit - size)
      const body = json(event)
      return genuineCase('genuine at the body limit', body, String(event.id), sign(body))
    },
    () => {
      if (genuine.length === 0) return undefined
      const { id, body } = known()
      return {
        ...genuineCase('redelivery', body, id, sign(body, secret(), now + skewInside())),
        contentType: 'application/json; charset=utf-8',
      }
    },
    () => {
      const event = envelope('test')
      return signed('timestamp outside tolerance', json(event), ['timestamp_outside_tolerance'], {
        signature: sign(json(event), secret(), Math.max(0, now + skewOutside())),
      })
    },
    () => {
      if (genuine.length === 0) return undefined
      const { body } = known()
      const mutated = random.pick([
        () => {
          const copy = Buffer.from(body)
          copy[random.int(0, copy.length - 1)]! ^= random.int(1, 255)
          return copy
        },
        () => Buffer.concat([body, Buffer.from(random.pick([' ', '\n', '\r\n', '\t']))]),
        () => body.subarray(0, random.int(0, body.length - 1)),
        () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]),
        () => Buffer.from(body.toString('utf8').replace('"test"', '"TEST"')),
        () => Buffer.from(body.toString('utf8').replace(/"id":"[^"]*"/, '"id":"evt_forged"')),
      ])()
      if (mutated.equals(body)) return undefined
      // A genuine body at the limit grows past it when a byte is appended.
      const expect = mutated.length > limit ? ['payload_too_large'] : ['signature_mismatch']
      return {
        ...signed('body changed after signing', mutated, expect),
        signature: sign(body),
      }
    },
    () => {
      if (genuine.length === 0) return undefined
      const { body } = known()
      const gzipped = gzipSync(body)
      // Signed over the decoded bytes: the receiver checks the bytes it got, so this cannot verify.
      return {
        ...signed('gzip, signed over the plain body', gzipped, ['signature_mismatch']),
        signature: sign(body),
        contentEncoding: 'gzip',
      }
    },
    () => {
      const event = envelope('test')
      const body = gzipSync(json(event))
      return signed('gzip, signed over the compressed bytes', body, ['invalid_json', 'invalid_utf8'], {
        contentEncoding: 'gzip',
      })
    },
    () => {
      if (genuine.length === 0) return undefined
      const { body } = known()
      const header = sign(body)
      const at = random.int(0, header.length - 1)
      const changed = header.slice(0, at) + String.fromCharCode(random.int(32, 126)) + header.slice(at + 1)
      if (changed === header) return undefined
      return { ...signed('header changed', body, HEADER_REJECTIONS), signature: changed }
    },
    () => {
      const body = json(envelope('test'))
      const base = secret()
      const wrong = random.pick([
        'whsec_attacker',
        '',
        base.slice(0, -1),
        `${base}x`,
        base.toUpperCase() === base ? base.toLowerCase() : base.toUpperCase(),
        base.slice(0, -1) + String.fromCharCode(base.charCodeAt(base.length - 1) ^ 1),
        Buffer.from(base).toString('base64'),
      ])
      return { ...signed('wrong secret', body, ['signature_mismatch']), signature: sign(body, wrong) }
    },
    () => {
      const body = json(envelope('test'))
      const t = now + skewInside()
      // Signed for one timestamp, sent with another (both in tolerance): a replayed signature with a fresh t.
      const header = `t=${t === now ? now + 1 : now},v1=${sign(body, secret(), t).split('v1=')[1]}`
      return { ...signed('signature for another timestamp', body, ['signature_mismatch']), signature: header }
    },
    () =>
      signed('signed garbage', garbage(random.int(1, 600)), [
        'invalid_json',
        'invalid_utf8',
        'not_an_object',
        'too_deep',
      ]),
    () => {
      const text = JSON.stringify(envelope('test', { note: 'Zahlung für' }))
      const body = random.pick([
        () => Buffer.from(text, 'latin1'),
        () =>
          Buffer.concat([
            Buffer.from(text.slice(0, 20)),
            Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
            Buffer.from(text.slice(20)),
          ]),
        () => Buffer.from(text.slice(0, random.int(1, text.length - 1))),
        () => Buffer.from(`${text}}`),
        () => Buffer.from(`${text}garbage`),
        () => Buffer.from(text.replace(':', '::')),
        () => Buffer.from(`{"id":NaN}`),
        () => Buffer.from(`{'id':'single quotes'}`),
        () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
        () => Buffer.from(`${'['.repeat(Math.min(limit - 1, 5000))}`),
      ])()
      return signed('signed invalid JSON', body, ['invalid_json', 'invalid_utf8', 'too_deep'])
    },
    () => {
      const notAnObject = random.pick([[], null, 1, 'x', true, [envelope('test')]])
      return signed('signed JSON that is not an object', json(notAnObject), ['not_an_object'])
    },
    () => {
      // Authentic means accepted (issue 14): an envelope in another dialect is queued, whatever its shape. A nonce
      // keeps bodies without a usable id apart (their id is the body's digest).
      const base = envelope(
        random.pick(['test', 'connection.status_changed', 'transactions.sync_available']),
        {
          nonce: serial,
        },
      )
      const other = random.pick<() => Record<string, unknown>>([
        () => ({ ...base, id: random.pick(['', null, 'x'.repeat(256), ['evt'], { a: 1 }, 1e6 + serial++]) }),
        () => {
          const { id, ...rest } = base
          return { ...rest, [random.pick(['eventId', 'event_id', 'messageId'])]: id }
        },
        () => ({ ...base, type: random.pick(['', 7, null, ['test']]) }),
        () => ({
          ...base,
          createdAt: random.pick(['yesterday', '2026-13-45T00:00:00Z', '2026-03-02', 1772442000, '']),
        }),
        () => ({ ...base, data: random.pick([null, [], 'data', 5]) }),
        () => {
          const { data: _data, createdAt: _createdAt, ...rest } = base
          return rest
        },
        () => ({ ...base, type: 'connection.status_changed', data: { connectionId: 5, status: 'bogus' } }),
        () => ({ ...base, type: 'test', data: { webhookId: { $ne: null } } }),
        () => ({
          ...base,
          type: 'transactions.sync_available',
          data: { connectionId: "'; drop table transactions; --" },
        }),
      ])()
      const body = json(other)
      return genuineCase('signed envelope in another dialect', body, expectedEventId(other, body), sign(body))
    },
    () => {
      // PostgreSQL text and jsonb refuse U+0000 and unpaired surrogates: refused at the door, never queued.
      const event = envelope(random.pick(['test', 'connection.status_changed', 'x.unknown']))
      const odd = random.pick(['\\u0000', 'a\\u0000b', '\\ud800', 'x\\uDC00', '\\ud83d'])
      const text = JSON.stringify(event)
      const body = random.pick([
        () => text.replace('"apiVersion":"v1"', `"apiVersion":"v1${odd}"`),
        () => text.replace('"apiVersion"', `"k${odd}":1,"apiVersion"`),
        () => text.replace('"data":{', `"data":{"nested":[[{"deep":"${odd}"}]],`),
        () => `${'['.repeat(3000)}"${odd}"${']'.repeat(3000)}`,
      ])()
      return signed('signed JSON with strings PostgreSQL cannot store', Buffer.from(body), [
        'unstorable_text',
        'too_deep',
      ])
    },
    () => {
      const depth = random.int(1, 20_000)
      const body = Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`)
      return signed('signed deeply nested JSON', body, [
        body.length > limit ? 'payload_too_large' : depth > 64 ? 'too_deep' : 'not_an_object',
      ])
    },
    () => {
      const body = json(envelope('test'))
      const type = random.pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        'json',
        undefined,
      ])
      return { ...signed('not JSON by type', body, ['unsupported_media_type']), contentType: type }
    },
    () => {
      const body = Buffer.concat([json(envelope('test')), Buffer.alloc(limit + random.int(0, 3 * limit), 32)])
      return signed('too large', body, ['payload_too_large'])
    },
    () => {
      const body = random.pick([json(envelope('test')), garbage(random.int(0, 300))])
      const valid = sign(body)
      const [header, expect] = random.pick<[string | string[] | undefined, string[]]>([
        [undefined, ['missing_header']],
        ['', ['missing_header']],
        ['garbage', ['malformed_header']],
        [`t=${now}`, ['no_signature']],
        [`t=${now},v0=${'a'.repeat(64)}`, ['no_signature']],
        [`t=${now},v1=${valid.split('v1=')[1]!.toUpperCase()}`, ['no_signature']],
        [`t=${now},v1=${valid.split('v1=')[1]!.slice(0, 63)}`, ['no_signature']],
        [`v1=${'0'.repeat(64)}`, ['malformed_header']],
        [`t=x,v1=${'a'.repeat(64)}`, ['malformed_header']],
        [`t=-5,v1=${'a'.repeat(64)}`, ['malformed_header']],
        [`t=1e9,v1=${'a'.repeat(64)}`, ['malformed_header']],
        [`t=${'9'.repeat(13)},v1=${'a'.repeat(64)}`, ['malformed_header']],
        [`${valid},${valid}`, ['malformed_header']],
        [[valid, valid], ['malformed_header']],
        [`${valid},=`, ['malformed_header']],
        [`${valid},${'v1=x,'.repeat(2000)}`, ['malformed_header']],
      ])
      return { ...signed('missing or broken header', body, expect), signature: header }
    },
    () => {
      const header = Array.from({ length: random.int(0, 120) }, () =>
        String.fromCharCode(random.pick(HEADER_CODES)),
      ).join('')
      return { ...signed('noise', garbage(random.int(0, 2_000)), HEADER_REJECTIONS), signature: header }
    },
  ]

  let made = 0
  while (made < count) {
    // Genuine deliveries are about a quarter of the traffic so redeliveries and mutations have material.
    const maker = random.chance(0.25) ? random.pick(makers.slice(0, 5)) : random.pick(makers)
    const fuzzCase = maker()
    if (!fuzzCase) continue
    if (random.chance(0.1)) fuzzCase.chunked = true
    made++
    yield fuzzCase
  }
}

/** A fresh random stream for transport choices, independent of the cases. */
export function transportRandom(seed: number): SeededRandom {
  return seededRandom(seed).fork('transport')
}
