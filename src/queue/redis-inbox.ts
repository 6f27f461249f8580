import { dedupeKey, WEBHOOK_EVENTS_QUEUE, type IgnoredReason, type WebhookJob } from './catalogue.js'

/**
 * Under a storm of deliveries the receiver does not add BullMQ jobs itself: a BullMQ add costs about 40 µs of the
 * receiver's CPU and as much of Redis's per event, more than a storm leaves. It appends each new event to an inbox
 * list in one small script per batch (seen key and entry together), and a forwarder in the workers moves the inbox
 * into the BullMQ queue. An entry in the inbox is as durable as a job in the queue: both are Redis writes.
 */
export type InboxKeys = {
  /** The list of queued entries, oldest first. */
  inbox: string
  /** Holds one token while the inbox has news; the forwarder blocks on it when idle. */
  wake: string
  /** The forwarding lease: one forwarder moves entries at a time. */
  lease: string
  /** Entries the forwarder could not decode, kept for a human instead of dropped. */
  dead: string
}

export function inboxKeys(prefix: string): InboxKeys {
  const base = `${prefix}:${WEBHOOK_EVENTS_QUEUE}`
  return {
    inbox: `${base}:inbox`,
    wake: `${base}:inbox-wake`,
    lease: `${base}:inbox-lease`,
    dead: `${base}:inbox-dead`,
  }
}

/**
 * KEYS: inbox, wake, then one seen key per event. ARGV: dedupe TTL in seconds, then per event its receivedAt
 * (the seen key's value) and its entry. Answers per event 1 (appended) or 0 (seen within the window).
 */
export const INGEST_SCRIPT = `
local entries = {}
local results = {}
for i = 3, #KEYS do
  local at = (i - 3) * 2 + 2
  if redis.call('SET', KEYS[i], ARGV[at], 'NX', 'EX', ARGV[1]) then
    entries[#entries + 1] = ARGV[at + 1]
    results[i - 2] = 1
  else
    results[i - 2] = 0
  end
end
if #entries > 0 then
  redis.call('RPUSH', KEYS[1], unpack(entries))
  if redis.call('LLEN', KEYS[2]) == 0 then redis.call('RPUSH', KEYS[2], '1') end
end
return results
`

/** The arguments of INGEST_SCRIPT for a batch: the key count first, as ioredis's dynamic-keys commands take it. */
export function ingestArguments(
  keys: InboxKeys,
  prefix: string,
  ttlSeconds: number,
  jobs: readonly WebhookJob[],
): (string | number)[] {
  const seen = jobs.map((job) => dedupeKey(prefix, job.eventId))
  const args: (string | number)[] = [2 + jobs.length, keys.inbox, keys.wake, ...seen, ttlSeconds]
  for (const job of jobs) args.push(job.receivedAt, encodeInboxEntry(job))
  return args
}

/** An inbox entry: the job as JSON, the event as its delivered text when the job has it (no second serialization). */
export function encodeInboxEntry(job: WebhookJob): string {
  const head =
    `{"eventId":${JSON.stringify(job.eventId)},"type":${JSON.stringify(job.type)},` +
    `"receivedAt":${JSON.stringify(job.receivedAt)},` +
    (job.ignored ? `"ignored":${JSON.stringify(job.ignored)},` : '') +
    (job.traceparent ? `"traceparent":${JSON.stringify(job.traceparent)},` : '')
  return `${head}"event":${job.eventJson ?? JSON.stringify(job.event)}}`
}

const IGNORED: readonly IgnoredReason[] = ['reserved_type', 'unknown_type']

/** The job an inbox entry holds; throws a TypeError naming what is wrong with an entry that is not one. */
export function decodeInboxEntry(entry: string): WebhookJob {
  let value: unknown
  try {
    value = JSON.parse(entry)
  } catch {
    throw new TypeError('The inbox entry is not JSON.')
  }
  const { eventId, type, receivedAt, ignored, event, traceparent } = (value ?? {}) as Record<string, unknown>
  for (const [name, field] of Object.entries({ eventId, type, receivedAt })) {
    if (typeof field !== 'string' || field === '')
      throw new TypeError(`The inbox entry has no ${name} string.`)
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new TypeError('The inbox entry has no event object.')
  if (ignored !== undefined && !IGNORED.includes(ignored as IgnoredReason))
    throw new TypeError(`The inbox entry has an unknown ignored reason.`)
  return {
    eventId: eventId as string,
    type: type as string,
    receivedAt: receivedAt as string,
    event: event as Record<string, unknown>,
    ...(ignored ? { ignored: ignored as IgnoredReason } : {}),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  }
}
