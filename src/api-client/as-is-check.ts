import type { z } from 'zod'

/**
 * A predicate over a value that holds only where `schema.safeParse(value)` succeeds with a value equal to it
 * (key order aside): the caller may then use the value as it is and skip zod's copy of it. Where it does not hold,
 * the caller asks zod, whose answer (success or issues) is then exactly what it would have been.
 */
export type AsIsCheck = (value: unknown) => boolean

/**
 * The schema's AsIsCheck, built from its definition, for the parts a sync event's transaction is made of: a loose
 * object of strings (plain or with pattern-only formats), enums, and their optional and nullable forms. Undefined
 * for a schema with any other part (a transform, a refinement, a default, another format), which zod alone reads.
 * zod's own parse of a transaction (the object's per-key runs and copy) costs several times its regular
 * expressions (docs/performance.md, "Issue 29, eighth pass").
 */
export function asIsCheck(schema: z.ZodType): AsIsCheck | undefined {
  const def = defOf(schema)
  if (def.type !== 'object' || def.checks?.length || defOf(def.catchall).type !== 'unknown') return undefined
  const fields: Array<[string, AsIsCheck]> = []
  for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
    const check = valueCheck(field)
    if (!check || key === '__proto__') return undefined
    fields.push([key, check])
  }
  return (value) => {
    // zod copies inherited enumerable keys and drops an own __proto__: values it would change are left to it.
    if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
      return false
    if (Object.hasOwn(value, '__proto__')) return false
    const record = value as Record<string, unknown>
    for (const [key, check] of fields) if (!check(record[key])) return false
    return true
  }
}

/** Formats whose only check in zod is their pattern (`$ZodCheckStringFormat`), none of which transforms. */
const PATTERN_ONLY_FORMATS = new Set(['uuid', 'date', 'datetime', 'regex'])

function valueCheck(schema: unknown): AsIsCheck | undefined {
  const def = defOf(schema)
  if (def.type !== 'string' && def.checks?.length) return undefined
  switch (def.type) {
    case 'optional': {
      const inner = valueCheck(def.innerType)
      return inner && ((value) => value === undefined || inner(value))
    }
    case 'nullable': {
      const inner = valueCheck(def.innerType)
      return inner && ((value) => value === null || inner(value))
    }
    case 'enum': {
      // The set zod's own parse looks values up in.
      const values = (schema as { _zod: { values?: unknown } })._zod.values
      return values instanceof Set ? (value) => values.has(value) : undefined
    }
    case 'string':
      return stringCheck(def)
    default:
      return undefined
  }
}

/** A string with its format's pattern (a format schema's own) and those of its regex checks, nothing else. */
function stringCheck(def: Def): AsIsCheck | undefined {
  if (def.coerce) return undefined
  const checks = (def.checks ?? []).map(defOf)
  if (checks.some((check) => check.check !== 'string_format' || check.when !== undefined)) return undefined
  const formats = def.format === undefined ? checks : [def, ...checks]
  const patterns: RegExp[] = []
  for (const { format, pattern } of formats) {
    if (!PATTERN_ONLY_FORMATS.has(format ?? '') || !(pattern instanceof RegExp)) return undefined
    if (pattern.global || pattern.sticky) return undefined
    patterns.push(pattern)
  }
  return (value) => {
    if (typeof value !== 'string') return false
    for (const pattern of patterns) if (!pattern.test(value)) return false
    return true
  }
}

/** The part of zod's internal definition this reads (`schema._zod.def`, stable across zod 4). */
type Def = {
  type: string
  check?: string
  checks?: unknown[]
  coerce?: boolean
  format?: string
  pattern?: unknown
  when?: unknown
  innerType?: unknown
  shape?: unknown
  catchall?: unknown
}

function defOf(schema: unknown): Def {
  return (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def ?? { type: 'none' }
}
