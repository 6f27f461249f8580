import { describe, expect, it } from 'vitest'
import { observe } from './index.js'
import { emptyHealth } from './health-record.js'
import { connectionNotice } from './connection-notice.js'
import type { AlertNotice, ConnectionRef, TransferRef } from './notice.js'
import { renderJsonAlert, renderSlackMessage } from './render.js'
import { transferNotice } from './transfer-notice.js'
import { observeTransfer, newTransferTracking, tickTransfer } from './transfer-outcome.js'

const NOW = new Date('2026-03-02T09:00:00.000Z')
const PORTAL = 'https://online.northwind-bank.example/business'
const CONNECTION: ConnectionRef = {
  id: 'conn_7f3a',
  entityId: '0b6f1d2e-8c3a-4d5e-9f10-1a2b3c4d5e6f',
  institutionId: 'northwind',
  institutionName: 'Northwind <Bank> & Co',
  portalUrl: PORTAL,
}
const TRANSFER: TransferRef = {
  id: '5f0c6a52-3b1d-4e8f-9a7b-0c1d2e3f4a5b',
  clientReference: 'INV-2041',
  amount: { value: '1250.00', currency: 'EUR' },
  portalUrl: PORTAL,
}

function reauthNotice(connection: ConnectionRef = CONNECTION): AlertNotice {
  const { effects } = observe(
    emptyHealth(connection.id),
    { status: 'reauthRequired', observedAt: NOW.toISOString(), source: 'webhook', eventId: 'e1' },
    NOW,
    { erroredAfterSeconds: 3600, staleSyncSeconds: 93_600, reminderSeconds: 14_400 },
  )
  const alert = effects.find((e) => e.type === 'alert')
  if (!alert || alert.type !== 'alert') throw new Error('no alert')
  return connectionNotice(alert, connection)
}

function transferAlert(status: 'pending_bank_approval' | 'failed', failureReason?: string) {
  const step = observeTransfer(
    newTransferTracking(TRANSFER.id),
    {
      status,
      observedAt: NOW.toISOString(),
      failureReason: failureReason ? { message: failureReason } : null,
    },
    NOW,
  )
  const alert = step.effects.find((e) => e.type === 'alert')
  if (!alert || alert.type !== 'alert') throw new Error('no alert')
  return { notice: transferNotice(alert, TRANSFER), tracking: step.tracking }
}

describe('Slack message', () => {
  it('has a header, the text, fields, what to do and a context line', () => {
    const message = renderSlackMessage(reauthNotice())
    expect(message.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'section', 'context'])
    const [header, text, fields, action, context] = message.blocks as any[]
    expect(header.text).toEqual({
      type: 'plain_text',
      text: 'Northwind <Bank> & Co: bank connection needs re-authentication',
      emoji: true,
    })
    expect(text.text.text).toContain(
      'Connection conn_7f3a (Northwind &lt;Bank&gt; &amp; Co) needs re-authentication',
    )
    expect(fields.fields).toContainEqual({ type: 'mrkdwn', text: `*Portal*\n${PORTAL}` })
    expect(fields.fields).toContainEqual({ type: 'mrkdwn', text: '*Connection*\nconn_7f3a' })
    expect(action.text.text).toMatch(
      /^\*What to do:\* The delegated user of this connection must sign in to the bank portal at /,
    )
    expect(action.text.text).toContain(PORTAL)
    expect(context.elements[0].text).toContain('critical · alert · 2026-03-02T09:00:00.000Z')
    expect(message.text).toContain('needs re-authentication')
  })

  it('escapes what the bank wrote so it cannot inject links or mentions', () => {
    const message = renderSlackMessage(
      reauthNotice({ ...CONNECTION, institutionName: '<!channel> <https://evil.example|x>' }),
    )
    const body = JSON.stringify(message.blocks.filter((b) => b.type !== 'header'))
    expect(body).not.toContain('<!channel>')
    expect(body).toContain('&lt;!channel&gt;')
  })

  it('keeps within Slack limits: header 150 characters, at most 10 fields', () => {
    const notice: AlertNotice = {
      ...reauthNotice(),
      title: 'x'.repeat(400),
      fields: Array.from({ length: 14 }, (_, i) => ({ label: `f${i}`, value: 'v' })),
    }
    const [header, , fields] = renderSlackMessage(notice).blocks as any[]
    expect(header.text.text).toHaveLength(150)
    expect(fields.fields).toHaveLength(10)
  })

  it('leaves out the action block when there is nothing to do', () => {
    const message = renderSlackMessage({ ...reauthNotice(), type: 'recovery', action: null })
    expect(message.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context'])
  })

  it('says approve in the bank portal for a transfer pending approval', () => {
    const { notice } = transferAlert('pending_bank_approval')
    const message = renderSlackMessage(notice)
    expect(notice.title).toBe('Transfer INV-2041 awaits approval in the bank portal')
    expect(notice.text).toContain('1250.00 EUR')
    expect(JSON.stringify(message)).toContain(`Approve in the bank portal (${PORTAL})`)
  })
})

describe('JSON alert body', () => {
  it('carries id, type, severity, the connection, title, text, action and occurredAt', () => {
    const notice = reauthNotice()
    const body = renderJsonAlert(notice)
    expect(body).toEqual({
      id: notice.id,
      type: 'alert',
      severity: 'critical',
      kind: 'reauthRequired',
      incidentId: notice.incidentId,
      connection: {
        id: 'conn_7f3a',
        entityId: CONNECTION.entityId,
        institutionId: 'northwind',
        institutionName: 'Northwind <Bank> & Co',
        portalUrl: PORTAL,
        delegatedUser: null,
      },
      title: notice.title,
      text: notice.text,
      action: notice.action,
      fields: notice.fields,
      occurredAt: '2026-03-02T09:00:00.000Z',
    })
    expect(body.action).toContain(PORTAL)
  })

  it('carries the transfer, the failure reason and what to do for a failed transfer', () => {
    const body = renderJsonAlert(transferAlert('failed', 'Insufficient funds').notice)
    expect(body).toMatchObject({
      type: 'alert',
      severity: 'critical',
      kind: 'failed',
      transfer: {
        id: TRANSFER.id,
        clientReference: 'INV-2041',
        amount: { value: '1250.00', currency: 'EUR' },
      },
      title: 'Transfer INV-2041 failed',
    })
    expect(body.text).toContain('Reason: Insufficient funds.')
    expect(body.action).toContain(`bankrec transfer retry ${TRANSFER.id}`)
    expect(body).not.toHaveProperty('connection')
  })

  it('words a transfer approval reminder and its closing notice', () => {
    const { tracking } = transferAlert('pending_bank_approval')
    const reminder = tickTransfer(tracking, new Date(NOW.getTime() + 4 * 3600_000), {
      reminderSeconds: 14_400,
    }).effects[0]!
    expect(renderJsonAlert(transferNotice(reminder, TRANSFER))).toMatchObject({
      type: 'reminder',
      title: 'Reminder 1: Transfer INV-2041 awaits approval in the bank portal',
    })
    const done = observeTransfer(
      tracking,
      { status: 'completed', observedAt: '2026-03-02T10:00:00.000Z' },
      NOW,
    )
    const recovery = done.effects.find((e) => e.type === 'recovery')!
    if (recovery.type !== 'recovery') throw new Error('no recovery')
    expect(renderJsonAlert(transferNotice(recovery, TRANSFER))).toMatchObject({
      type: 'recovery',
      severity: 'info',
      title: 'Transfer INV-2041 no longer awaits approval',
      action: null,
    })
  })

  it('never carries fields a caller passed beyond the known ones', () => {
    const leaky = { ...CONNECTION, password: 'hunter2', apiKey: 'sk_live_123' } as ConnectionRef
    const notice = reauthNotice(leaky)
    const rendered = JSON.stringify([renderJsonAlert(notice), renderSlackMessage(notice)])
    expect(rendered).not.toMatch(/hunter2|sk_live_123/)
  })
})
