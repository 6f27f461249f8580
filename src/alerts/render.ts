import type { AlertSeverity } from './config.js'
import type { AlertNotice, ConnectionRef, NoticeType, TransferRef } from './notice.js'

type PlainText = { type: 'plain_text'; text: string; emoji?: boolean }
type Mrkdwn = { type: 'mrkdwn'; text: string }
export type SlackBlock =
  | { type: 'header'; text: PlainText }
  | { type: 'section'; text: Mrkdwn }
  | { type: 'section'; fields: Mrkdwn[] }
  | { type: 'context'; elements: Mrkdwn[] }

/**
 * The body of a Slack incoming-webhook POST: `text` is the notification fallback, `blocks` what people read.
 */
export type SlackMessage = { text: string; blocks: SlackBlock[] }

/** The generic JSON alert body, signed with Service-Signature when delivered. */
export type JsonAlertBody = {
  id: string
  type: NoticeType
  severity: AlertSeverity
  kind: string
  incidentId: string | null
  connection?: ConnectionRef
  transfer?: TransferRef
  title: string
  text: string
  action: string | null
  fields: { label: string; value: string }[]
  occurredAt: string
}

// Slack's documented limits: header 150 characters, section text 3000, a field 2000, at most 10 fields.
const HEADER_MAX = 150
const SECTION_MAX = 3000
const FIELD_MAX = 2000
const FIELDS_MAX = 10

const ICON: Record<NoticeType, string> = {
  alert: ':rotating_light:',
  reminder: ':alarm_clock:',
  recovery: ':white_check_mark:',
  info: ':information_source:',
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** Slack mrkdwn treats &, < and > as control characters; everything the bank or a user wrote is escaped. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

export function renderSlackMessage(notice: AlertNotice): SlackMessage {
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(notice.title, HEADER_MAX), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: truncate(escapeMrkdwn(notice.text), SECTION_MAX) } },
  ]
  if (notice.fields.length > 0) {
    blocks.push({
      type: 'section',
      fields: notice.fields.slice(0, FIELDS_MAX).map((field) => ({
        type: 'mrkdwn',
        text: truncate(`*${escapeMrkdwn(field.label)}*\n${escapeMrkdwn(field.value)}`, FIELD_MAX),
      })),
    })
  }
  if (notice.action !== null) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(`*What to do:* ${escapeMrkdwn(notice.action)}`, SECTION_MAX) },
    })
  }
  const context = [ICON[notice.type], notice.severity, notice.type, notice.occurredAt, `id ${notice.id}`]
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(context.join(' · ')) }] })
  return { text: escapeMrkdwn(`${notice.title}. ${notice.action ?? ''}`.trim()), blocks }
}

export function renderJsonAlert(notice: AlertNotice): JsonAlertBody {
  return {
    id: notice.id,
    type: notice.type,
    severity: notice.severity,
    kind: notice.kind,
    incidentId: notice.incidentId,
    ...notice.subject,
    title: notice.title,
    text: notice.text,
    action: notice.action,
    fields: notice.fields,
    occurredAt: notice.occurredAt,
  }
}
