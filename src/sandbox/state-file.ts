import { existsSync, readFileSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { SandboxState } from './state.js'

/** The format version of a state file; a file of another version is refused rather than half-read. */
export const STATE_FILE_VERSION = 1

/** What a state file holds: the bank's state plus what is needed to carry on from it after a restart. */
export type SavedSandbox = {
  version: typeof STATE_FILE_VERSION
  /** The seed the state was made with: sync cursor MACs and keys derive from it. */
  seed: number
  /** How many times the sandbox was restored from the file; new draws come from a random stream of their own. */
  generation: number
  /** The virtual clock when saved, and how far ahead of real time it was. */
  clock: { now: Date; offsetMs: number }
  state: SandboxState
}

const DATE = '$sandbox.date'
const MAP = '$sandbox.map'

/** JSON with Maps and Dates kept: `{"$sandbox.map": [[k, v]…]}` and `{"$sandbox.date": iso}`. */
export function serializeSandbox(saved: SavedSandbox): string {
  return JSON.stringify(saved, function (this: Record<string, unknown>, key, value: unknown) {
    // Date.toJSON has already turned the value into a string: the holder still has the Date itself.
    const raw = this[key]
    if (raw instanceof Date) return { [DATE]: raw.toISOString() }
    if (value instanceof Map) return { [MAP]: [...value.entries()] }
    return value
  })
}

/** @throws Error when the text is not a state file of this version */
export function parseSandbox(text: string): SavedSandbox {
  const parsed = JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const tagged = value as Record<string, unknown>
      if (typeof tagged[DATE] === 'string') return new Date(tagged[DATE])
      if (Array.isArray(tagged[MAP])) return new Map(tagged[MAP] as Array<[unknown, unknown]>)
    }
    return value
  }) as Partial<SavedSandbox> | null
  if (parsed?.version !== STATE_FILE_VERSION || !parsed.state || !(parsed.clock?.now instanceof Date)) {
    throw new Error(`not a sandbox state file of version ${STATE_FILE_VERSION}`)
  }
  return parsed as SavedSandbox
}

/** Reads a state file at start-up (synchronously: createSandbox is); undefined when there is none yet. */
export function readStateFile(file: string): SavedSandbox | undefined {
  if (!existsSync(file)) return undefined
  try {
    return parseSandbox(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(
      `The sandbox state file ${file} cannot be read (${error instanceof Error ? error.message : String(error)}); move it away to start from a fresh sandbox.`,
    )
  }
}

/** Writes the file whole or not at all: a crash mid-write leaves the previous version in place. */
export async function writeStateFile(file: string, saved: SavedSandbox): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, serializeSandbox(saved), { mode: 0o600 })
  await rename(temporary, file)
}
