import type { Kysely, Selectable } from 'kysely'
import type { Database, RuntimeSettingsTable } from './database.js'

export type RuntimeSettingRow = Selectable<RuntimeSettingsTable>

/** A runtime setting as stored; undefined when nobody set it (the environment's default applies). */
export async function readRuntimeSetting(
  db: Kysely<Database>,
  key: string,
): Promise<RuntimeSettingRow | undefined> {
  return db.selectFrom('runtime_settings').selectAll().where('key', '=', key).executeTakeFirst()
}

/**
 * Sets a runtime setting; returns the value it had (null when none was stored). Call it in the transaction that
 * records the change in the audit log: the row is locked until then, so two changes are ordered.
 */
export async function writeRuntimeSetting(
  db: Kysely<Database>,
  setting: { key: string; value: string; at: Date; by: string; role: string | null },
): Promise<{ previous: string | null; row: RuntimeSettingRow }> {
  const previous = await db
    .selectFrom('runtime_settings')
    .select('value')
    .where('key', '=', setting.key)
    .forUpdate()
    .executeTakeFirst()
  const values = {
    value: setting.value,
    changed_at: setting.at,
    changed_by: setting.by,
    changed_by_role: setting.role,
  }
  const row = await db
    .insertInto('runtime_settings')
    .values({ key: setting.key, ...values })
    .onConflict((conflict) => conflict.column('key').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow()
  return { previous: previous?.value ?? null, row }
}
