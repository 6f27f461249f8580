import { sql, type Kysely } from 'kysely'
import type { AlertNotice } from '../alerts/index.js'
import type { Database } from './database.js'
import { anyOf } from './any-of.js'

/** One notice bound for one sink. */
export type DeliveryRef = { noticeId: string; sink: string }

export type StoredDelivery = {
  notice: AlertNotice
  status: string
  attempts: number
}

/**
 * Stores notices and a pending delivery per sink. A notice id already stored is skipped with its deliveries, so
 * a replayed effect is never sent twice. Returns the deliveries still pending for the given notices, the new ones
 * and any left behind by a crash before they were queued.
 */
export async function storeNotices(
  db: Kysely<Database>,
  notices: { notice: AlertNotice; sinks: string[] }[],
): Promise<DeliveryRef[]> {
  if (notices.length === 0) return []
  const inserted = await db
    .insertInto('alert_notices')
    .values(
      notices.map(({ notice }) => ({
        id: notice.id,
        kind: notice.kind,
        type: notice.type,
        severity: notice.severity,
        route_severity: notice.routeSeverity,
        incident_id: notice.incidentId,
        subject: JSON.stringify(notice.subject),
        title: notice.title,
        notice: JSON.stringify(notice),
        occurred_at: notice.occurredAt,
      })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute()
  const fresh = new Set(inserted.map((row) => row.id))
  const deliveries = notices
    .filter(({ notice }) => fresh.has(notice.id))
    .flatMap(({ notice, sinks }) => sinks.map((sink) => ({ notice_id: notice.id, sink })))
  if (deliveries.length > 0) {
    await db
      .insertInto('alert_deliveries')
      .values(deliveries)
      .onConflict((oc) => oc.columns(['notice_id', 'sink']).doNothing())
      .execute()
  }
  const rows = await db
    .selectFrom('alert_deliveries')
    .select(['notice_id', 'sink'])
    .where('notice_id', '=', anyOf(notices.map(({ notice }) => notice.id)))
    .where('status', '=', 'pending')
    .execute()
  return rows.map((row) => ({ noticeId: row.notice_id, sink: row.sink }))
}

/** Deliveries still pending that were last touched before `before`: lost between commit and queueing. */
export async function stalePendingDeliveries(
  db: Kysely<Database>,
  before: Date,
  limit = 500,
): Promise<DeliveryRef[]> {
  const rows = await db
    .selectFrom('alert_deliveries')
    .select(['notice_id', 'sink'])
    .where('status', '=', 'pending')
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute()
  return rows.map((row) => ({ noticeId: row.notice_id, sink: row.sink }))
}

export async function findDelivery(
  db: Kysely<Database>,
  ref: DeliveryRef,
): Promise<StoredDelivery | undefined> {
  const row = await db
    .selectFrom('alert_deliveries')
    .innerJoin('alert_notices', 'alert_notices.id', 'alert_deliveries.notice_id')
    .select(['alert_notices.notice', 'alert_deliveries.status', 'alert_deliveries.attempts'])
    .where('alert_deliveries.notice_id', '=', ref.noticeId)
    .where('alert_deliveries.sink', '=', ref.sink)
    .executeTakeFirst()
  return row && { notice: row.notice, status: row.status, attempts: row.attempts }
}

/** Counts one attempt; `failed` is final, a retryable failure stays pending with its error. */
export async function recordDeliveryAttempt(
  db: Kysely<Database>,
  ref: DeliveryRef,
  outcome: { status: 'delivered' | 'pending' | 'failed'; error?: string | null; at: Date },
): Promise<void> {
  await db
    .updateTable('alert_deliveries')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      last_error: outcome.error ?? null,
      delivered_at: outcome.status === 'delivered' ? outcome.at : null,
      // The database's time, like the insert's default: stalePendingDeliveries compares the two.
      updated_at: sql<Date>`now()`,
    }))
    .where('notice_id', '=', ref.noticeId)
    .where('sink', '=', ref.sink)
    .execute()
}

/** A stored notice as the alert feed shows it, with its place in the feed and its delivery to each sink. */
export type NoticeFeedItem = {
  notice: AlertNotice
  /** created_at as PostgreSQL prints it (microseconds kept), with the id: the feed's exact position. */
  position: { createdAt: string; id: string }
  deliveries: { sink: string; status: string; attempts: number; lastError: string | null }[]
}

/** Notices newest first (by when they were stored), after `before` when given. */
export async function listAlertNotices(
  db: Kysely<Database>,
  filter: { severity?: string; type?: string },
  before: { createdAt: string; id: string } | null,
  limit: number,
): Promise<NoticeFeedItem[]> {
  let query = db
    .selectFrom('alert_notices')
    .select(['id', 'notice', sql<string>`created_at::text`.as('created_text')])
  if (filter.severity) query = query.where('severity', '=', filter.severity)
  if (filter.type) query = query.where('type', '=', filter.type)
  if (before) {
    query = query.where(sql<boolean>`(created_at, id) < (${before.createdAt}::timestamptz, ${before.id})`)
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
  const deliveries =
    rows.length === 0
      ? []
      : await db
          .selectFrom('alert_deliveries')
          .select(['notice_id', 'sink', 'status', 'attempts', 'last_error'])
          .where('notice_id', '=', anyOf(rows.map((row) => row.id)))
          .orderBy('sink')
          .execute()
  return rows.map((row) => ({
    notice: row.notice,
    position: { createdAt: row.created_text, id: row.id },
    deliveries: deliveries
      .filter((delivery) => delivery.notice_id === row.id)
      .map((delivery) => ({
        sink: delivery.sink,
        status: delivery.status,
        attempts: delivery.attempts,
        lastError: delivery.last_error,
      })),
  }))
}
