import type { Kysely } from 'kysely'
import { z } from 'zod'
import { appendAudit, readRuntimeSetting, writeRuntimeSetting, type Database } from '../store/index.js'
import { auditActor, type Actor } from '../users/index.js'

/**
 * What the engine may do by itself (issue 25): `on` applies what the evidence allows (allocations, returns and
 * their write-offs); `shadow` applies none of it, suggests it to a person instead and records it for the trust
 * report; `off` suggests it and records nothing.
 */
export const AUTO_APPLY_MODES = ['off', 'shadow', 'on'] as const
export type AutoApplyMode = (typeof AUTO_APPLY_MODES)[number]
export const AutoApplyModeSchema = z.enum(AUTO_APPLY_MODES, {
  error: `must be one of ${AUTO_APPLY_MODES.join(', ')}`,
})

/** The runtime_settings key of the mode. */
export const AUTO_APPLY_SETTING = 'matching.auto_apply'

/** The mode in force, where it comes from, and who set it last. */
export type AutoApplyState = {
  autoApply: AutoApplyMode
  /** `stored`: set through the API or the CLI; `environment`: MATCH_AUTO_APPLY, nothing stored yet. */
  source: 'stored' | 'environment'
  changedAt: string | null
  changedBy: string | null
}

/** One indexed read: the stored mode, else `fallback` (the environment's MATCH_AUTO_APPLY). */
export async function readAutoApplyMode(
  db: Kysely<Database>,
  fallback: AutoApplyMode,
): Promise<AutoApplyState> {
  const row = await readRuntimeSetting(db, AUTO_APPLY_SETTING)
  const stored = AutoApplyModeSchema.safeParse(row?.value)
  if (!row || !stored.success)
    return { autoApply: fallback, source: 'environment', changedAt: null, changedBy: null }
  return {
    autoApply: stored.data,
    source: 'stored',
    changedAt: row.changed_at.toISOString(),
    changedBy: row.changed_by,
  }
}

/**
 * Stores the mode and records who changed it from what (audit action `matching.mode_changed`), in one
 * transaction. Every matching run reads it, so running workers follow without a restart.
 */
export async function changeAutoApplyMode(
  db: Kysely<Database>,
  change: { mode: AutoApplyMode; actor: Actor; now: Date; fallback: AutoApplyMode },
): Promise<AutoApplyState> {
  return db.transaction().execute(async (trx) => {
    const { previous, row } = await writeRuntimeSetting(trx, {
      key: AUTO_APPLY_SETTING,
      value: change.mode,
      at: change.now,
      by: change.actor.name,
      role: change.actor.role,
    })
    await appendAudit(trx, change.now, [
      {
        ...auditActor(change.actor),
        action: 'matching.mode_changed',
        entity: 'setting',
        entityId: AUTO_APPLY_SETTING,
        payload: {
          from: previous ?? change.fallback,
          to: change.mode,
          previousSource: previous ? 'stored' : 'environment',
        },
      },
    ])
    return {
      autoApply: change.mode,
      source: 'stored',
      changedAt: row.changed_at.toISOString(),
      changedBy: row.changed_by,
    }
  })
}
