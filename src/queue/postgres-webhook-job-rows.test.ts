import { describe, expect, it } from 'vitest'
import { jobIdFor, webhookJobData, type WebhookJob } from './catalogue.js'
import { webhookJobEntries } from './postgres-webhook-job-rows.js'

function job(eventId: string, extra: Partial<WebhookJob> = {}): WebhookJob {
  const event = { id: eventId, type: 'payment.settled', note: 'é "quoted" \\ \u2028' }
  return {
    eventId,
    type: event.type,
    event,
    eventJson: JSON.stringify(event),
    receivedAt: '2026-03-02T09:00:01.000Z',
    ...extra,
  }
}

describe('webhookJobEntries', () => {
  it('holds per job its event id, job id, name and exactly the data webhookJobData gives', () => {
    const jobs = [
      job('evt_plain'),
      job('evt:with-colon'),
      job('12345'),
      job('evt_ignored', { ignored: 'unknown_type' }),
      job('evt_traced', { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
      { ...job('evt_no_text', { ignored: 'unknown_type' }), eventJson: undefined },
    ]
    expect(JSON.parse(webhookJobEntries(jobs))).toEqual(
      jobs.map((j) => ({
        eventId: j.eventId,
        jobId: jobIdFor(j.eventId),
        name: j.type,
        data: webhookJobData(j),
      })),
    )
    expect(webhookJobEntries([])).toBe('[]')
  })
})
