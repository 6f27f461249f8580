import { sql, type Kysely } from 'kysely'

/** Every table of a schema as one digest of its rows, to prove a request wrote nothing anywhere. */
export async function snapshotTables(db: Kysely<any>, schema: string): Promise<Record<string, string>> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = ${schema} and table_type = 'BASE TABLE' order by table_name`.execute(db)
  const snapshot: Record<string, string> = {}
  for (const { table_name } of tables.rows) {
    const digest = await sql<{ rows: string; digest: string | null }>`
      select count(*)::text as rows, md5(string_agg(t::text, '|' order by t::text)) as digest
      from ${sql.table(`${schema}.${table_name}`)} t`.execute(db)
    snapshot[table_name] = `${digest.rows[0]!.rows}:${digest.rows[0]!.digest ?? ''}`
  }
  return snapshot
}

/** Every row of every table of a schema, as text, for scanning. */
export async function dumpTables(db: Kysely<any>, schema: string): Promise<Map<string, string[]>> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = ${schema} and table_type = 'BASE TABLE' order by table_name`.execute(db)
  const dump = new Map<string, string[]>()
  for (const { table_name } of tables.rows) {
    const rows = await sql<{
      row: string
    }>`select t::text as row from ${sql.table(`${schema}.${table_name}`)} t`.execute(db)
    dump.set(
      table_name,
      rows.rows.map((r) => r.row),
    )
  }
  return dump
}
