import { sql, type DatabaseIntrospector, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely'

/**
 * What Kysely's migrator needs to know (does our schema exist, which tables it holds), asked of our schema alone.
 * Kysely's own PostgreSQL introspector lists the tables of every schema and names each to has_schema_privilege, so
 * a schema someone else drops during that query (another tenant, a parallel test) fails it with 3F000 although
 * ours is fine. Tables are listed without their columns: the migrator reads names only.
 */
function schemaIntrospector(db: Kysely<unknown>, schema: string): DatabaseIntrospector {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(db)
    return rows.map((row) => ({ name: row.name, schema, isView: row.kind === 'v', columns: [] }))
  }
  return {
    async getSchemas(): Promise<SchemaMetadata[]> {
      const { rows } = await sql<{ name: string }>`
        select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db)
      return rows
    },
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  }
}

/** The same Kysely, whose `introspection` sees only `schema` (for the migrator). */
export function introspectingOnly<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspector = schemaIntrospector(db as Kysely<unknown>, schema)
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector
      // Kysely keeps its state in private fields: its methods must run on the real instance.
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
