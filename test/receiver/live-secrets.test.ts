import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { WebhookJob } from '../../src/queue/index.js'
import { createWebhookReceiver } from '../../src/receiver/index.js'

function signed(secret: string, id: string) {
  const body = JSON.stringify({
    id,
    type: 'test',
    createdAt: new Date().toISOString(),
    data: { webhookId: 'wh_1' },
  })
  const t = Math.floor(Date.now() / 1000)
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
  return { contentType: 'application/json', signature: `t=${t},v1=${v1}`, body: Buffer.from(body) }
}

describe('receiver with secrets read per delivery', () => {
  it('refuses deliveries until a secret exists, then accepts those signed with it, without a restart', async () => {
    let secrets: string[] = []
    const queued: WebhookJob[] = []
    const receiver = createWebhookReceiver({
      secrets: () => secrets,
      enqueue: async (job) => {
        queued.push(job)
        return 'queued'
      },
    })
    const before = await receiver.receive(signed('whsec_registered_later', 'evt_1'))
    expect([before.status, before.reason]).toEqual([500, 'no_secret'])

    secrets = ['whsec_registered_later']
    const after = await receiver.receive(signed('whsec_registered_later', 'evt_2'))
    expect(after.status).toBe(202)

    secrets = ['whsec_rotated', 'whsec_registered_later']
    expect((await receiver.receive(signed('whsec_rotated', 'evt_3'))).status).toBe(202)
    expect((await receiver.receive(signed('whsec_forged', 'evt_4'))).status).toBe(401)
    expect(queued.map((job) => job.eventId)).toEqual(['evt_2', 'evt_3'])
  })
})
