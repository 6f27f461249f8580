import { describe, expect, it } from 'vitest'
import { dedupeKey, type WebhookJob } from './catalogue.js'
import { decodeInboxEntry, encodeInboxEntry, inboxKeys, ingestArguments } from './redis-inbox.js'

const event = { id: 'evt_1', type: 'test', createdAt: '2026-03-02T09:00:00Z', data: { note: 'é "q"' } }
const job: WebhookJob = { eventId: 'evt_1', type: 'test', event, receivedAt: '2026-03-02T09:00:01.000Z' }

describe('inbox entries', () => {
  it('decode to the job they were encoded from', () => {
    expect(decodeInboxEntry(encodeInboxEntry(job))).toEqual(job)
    const ignored: WebhookJob = { ...job, type: 'account.created', ignored: 'reserved_type' }
    expect(decodeInboxEntry(encodeInboxEntry(ignored))).toEqual(ignored)
  })

  it('carry the delivered text of the event as it is, when the job has it', () => {
    const text =
      '{ "id":"evt_1", "type":"test","createdAt":"2026-03-02T09:00:00Z","data":{"note":"\\u00e9 \\"q\\""} }'
    const entry = encodeInboxEntry({ ...job, eventJson: text })
    expect(entry).toContain(text)
    expect(decodeInboxEntry(entry)).toEqual(job)
  })

  it('name what is wrong with an entry that is not a job', () => {
    expect(() => decodeInboxEntry('{')).toThrow('not JSON')
    expect(() => decodeInboxEntry(JSON.stringify({ ...job, eventId: '' }))).toThrow('no eventId')
    expect(() => decodeInboxEntry(JSON.stringify({ ...job, type: 3 }))).toThrow('no type')
    expect(() => decodeInboxEntry(JSON.stringify({ ...job, event: [] }))).toThrow('no event object')
    expect(() => decodeInboxEntry(JSON.stringify({ ...job, ignored: 'bored' }))).toThrow('ignored reason')
  })
})

describe('ingestArguments', () => {
  it('lists the key count, the inbox, the wake list and one seen key per job, then the TTL and a pair per job', () => {
    const keys = inboxKeys('p')
    const second = { ...job, eventId: 'evt_2' }
    expect(ingestArguments(keys, 'p', 60, [job, second])).toEqual([
      4,
      keys.inbox,
      keys.wake,
      dedupeKey('p', 'evt_1'),
      dedupeKey('p', 'evt_2'),
      60,
      job.receivedAt,
      encodeInboxEntry(job),
      second.receivedAt,
      encodeInboxEntry(second),
    ])
  })
})
