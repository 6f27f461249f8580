import { sql, type Kysely } from 'kysely'

export type CursorTransition = {
  id: number
  connectionId: string
  fromCursor: string | null
  toCursor: string | null
  /** application_name of the session that wrote it (PGAPPNAME of the worker process). */
  writer: string
}

/**
 * Records every change of a sync stream's cursor in `cursor_audit`, by a trigger in the test schema: the proof
 * that no page was applied twice does not rely on the code under test reporting on itself.
 */
export async function installCursorAudit(db: Kysely<any>, schema: string): Promise<void> {
  const table = sql.id(schema, 'cursor_audit')
  await sql`create table ${table} (
    id bigserial primary key,
    connection_id text not null,
    from_cursor text,
    to_cursor text,
    writer text not null default current_setting('application_name'),
    at timestamptz not null default clock_timestamp()
  )`.execute(db)
  await sql`create function ${sql.id(schema, 'audit_cursor')}() returns trigger language plpgsql as ${sql.lit(`
    begin
      if tg_op = 'INSERT' then
        insert into ${schema}.cursor_audit (connection_id, from_cursor, to_cursor) values (new.connection_id, null, new.cursor);
      elsif new.cursor is distinct from old.cursor then
        insert into ${schema}.cursor_audit (connection_id, from_cursor, to_cursor) values (new.connection_id, old.cursor, new.cursor);
      end if;
      return new;
    end`)}`.execute(db)
  await sql`create trigger sync_stream_cursor_audit after insert or update on ${sql.id(schema, 'sync_streams')}
    for each row execute function ${sql.id(schema, 'audit_cursor')}()`.execute(db)
}

export async function readCursorTransitions(db: Kysely<any>, schema: string): Promise<CursorTransition[]> {
  const { rows } = await sql<{
    id: string
    connection_id: string
    from_cursor: string | null
    to_cursor: string | null
    writer: string
  }>`select id, connection_id, from_cursor, to_cursor, writer from ${sql.id(schema, 'cursor_audit')} order by id`.execute(
    db,
  )
  return rows.map((r) => ({
    id: Number(r.id),
    connectionId: r.connection_id,
    fromCursor: r.from_cursor,
    toCursor: r.to_cursor,
    writer: r.writer,
  }))
}

/**
 * Pages applied more than once: a cursor that two applied pages started from. A stream restart (head saved, the
 * cursor reset to null) is not a page; the bootstrap's null → head step may happen once per restart.
 */
export function repeatedPages(transitions: readonly CursorTransition[]): string[] {
  const problems: string[] = []
  const seen = new Map<string, CursorTransition>()
  const bootstrapsSinceReset = new Map<string, number>()
  for (const t of transitions) {
    if (t.toCursor === null) {
      bootstrapsSinceReset.set(t.connectionId, 0)
      continue
    }
    if (t.fromCursor === null) {
      const count = (bootstrapsSinceReset.get(t.connectionId) ?? 0) + 1
      bootstrapsSinceReset.set(t.connectionId, count)
      if (count > 1)
        problems.push(
          `connection ${t.connectionId}: bootstrap completed twice after one restart (#${t.id}, by ${t.writer})`,
        )
      continue
    }
    const key = `${t.connectionId} ${t.fromCursor}`
    const earlier = seen.get(key)
    if (earlier) {
      problems.push(
        `connection ${t.connectionId}: the page after cursor ${t.fromCursor.slice(0, 24)}… was applied twice (#${earlier.id} by ${earlier.writer}, #${t.id} by ${t.writer})`,
      )
    }
    seen.set(key, t)
  }
  return problems
}
