import { listAuditEntries, type AuditRow } from '../../store/index.js'
import { USER_NAME_PATTERN } from '../../users/index.js'
import type { SidecarContext } from '../context.js'
import { shortId, when } from './format.js'
import { html, type SafeHtml } from './html.js'

const PAGE_SIZE = 100

export type ActivityData = {
  now: Date
  /** Only this person's (or the engine's) entries. */
  actor: string | undefined
  rows: AuditRow[]
  /** The seq the next page starts before. */
  next: string | null
}

export async function loadActivity(
  context: SidecarContext,
  query: { actor?: string; before?: string },
): Promise<ActivityData> {
  const before = query.before && /^\d{1,18}$/.test(query.before) ? query.before : null
  // A name no actor can have finds nothing (and never reaches the database).
  const found =
    query.actor === undefined || USER_NAME_PATTERN.test(query.actor)
      ? await listAuditEntries(context.store.db, { actor: query.actor }, before, PAGE_SIZE + 1)
      : []
  const rows = found.slice(0, PAGE_SIZE)
  return {
    now: context.clock.now(),
    actor: query.actor,
    rows,
    next: found.length > PAGE_SIZE ? rows.at(-1)!.seq : null,
  }
}

const link = (params: Record<string, string | undefined>) => {
  const query = new URLSearchParams(
    Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
  )
  return `/dashboard/activity${query.size > 0 ? `?${query.toString()}` : ''}`
}

/** The audit log, newest first: who did what to what, and when. */
export function renderActivity(data: ActivityData): SafeHtml {
  const table =
    data.rows.length === 0
      ? html`<p class="muted">Nothing recorded${data.actor ? ` for ${data.actor}` : ''}.</p>`
      : html`<table id="activity">
          <thead>
            <tr>
              <th class="num">#</th>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>On</th>
            </tr>
          </thead>
          <tbody>
            ${data.rows.map(
              (row) =>
                html`<tr data-seq="${row.seq}" data-actor="${row.actor}">
                  <td class="num">${row.seq}</td>
                  <td>${when(row.at, data.now)}</td>
                  <td>
                    <a href="${link({ actor: row.actor })}">${row.actor}</a
                    >${row.actor_role && html` <small>${row.actor_role}</small>`}
                  </td>
                  <td>${row.action}</td>
                  <td>${row.entity} ${shortId(row.entity_id)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
  return html`<section class="wide">
    <h2>
      Activity
      <small
        >the audit log, newest
        first${data.actor && html`: ${data.actor} only (<a href="/dashboard/activity">everyone</a>)`}</small
      >
    </h2>
    ${table}${data.next && html`<p><a href="${link({ actor: data.actor, before: data.next })}">Older →</a></p>`}
  </section>`
}
