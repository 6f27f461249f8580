import { readFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startIdlePipeline, type IdlePipeline } from '../support/one-paid-delivery.js'

/**
 * docs/architecture.md lists the files of one `transactions.sync_available` event's path, and names every other
 * file that runs for the event. This test runs the event on each queue backend under V8's precise coverage and
 * holds the document to what ran: each file listed on the path ran, and each file that ran is named.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const SRC = `${ROOT}/src/`

/** The sandbox plays the bank; the pure matcher is counted apart (issue 18 counts the files outside it). */
const NOT_BANKREC_PATH = ['src/sandbox/', 'src/matcher/']
const BACKEND_ONLY: Record<IdlePipeline['backend']['kind'], string> = {
  postgres: 'src/queue/postgres-webhook-event-queue.ts',
  redis: 'src/queue/redis-webhook-event-queue.ts',
}

type ScriptCoverage = {
  scriptId: string
  url: string
  functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[]
}

/**
 * The src/ files in which a function ran since the probe started. The module runner reads each export through a
 * generated getter (`() => { try { return name } catch {} }`); an import that is only read is not code that ran.
 */
async function startCoverageProbe(): Promise<{ filesRun(): Promise<Set<string>>; stop(): Promise<void> }> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Debugger.enable')
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
  await session.post('Profiler.takePreciseCoverage')
  return {
    async filesRun() {
      const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] }
      const files = new Set<string>()
      for (const script of result) {
        if (!script.url.includes(SRC)) continue
        const ran = script.functions.filter((fn) => fn.ranges[0]!.count > 0)
        if (ran.length === 0) continue
        const { scriptSource } = (await session.post('Debugger.getScriptSource', {
          scriptId: script.scriptId,
        })) as { scriptSource: string }
        const isGetter = (fn: ScriptCoverage['functions'][number]) =>
          /^\(\) => \{ try \{ return [\w$.]+ \} catch \{\} \}$/.test(
            scriptSource.slice(fn.ranges[0]!.startOffset, fn.ranges[0]!.endOffset),
          )
        if (ran.some((fn) => !isGetter(fn)))
          files.add(`src/${script.url.slice(script.url.indexOf(SRC) + SRC.length)}`)
      }
      return files
    },
    async stop() {
      await session.post('Profiler.stopPreciseCoverage')
      session.disconnect()
    },
  }
}

function section(doc: string, heading: string): string {
  const start = doc.indexOf(heading)
  if (start === -1) throw new Error(`docs/architecture.md has no section "${heading}"`)
  const next = doc.indexOf('\n## ', start + heading.length)
  return next === -1 ? doc.slice(start) : doc.slice(start, next)
}

const filesIn = (text: string) => new Set(text.match(/src\/[\w./-]+?\.ts\b/g) ?? [])

function architecture() {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
  return {
    path: filesIn(section(doc, '## One `transactions.sync_available` event, file by file')),
    after: filesIn(section(doc, '## After the path: the rest of the event')),
    passedThrough: filesIn(section(doc, '## What else runs for the event, not counted')),
  }
}

describe.each(['postgres', 'redis'] as const)(
  'the files one sync_available event runs (%s queue)',
  (kind) => {
    let pipeline: IdlePipeline | undefined

    afterAll(async () => {
      await pipeline?.close()
    })

    it('are the path docs/architecture.md lists, the work after it, or what it names as passed through', async () => {
      pipeline = await startIdlePipeline(`path_${kind}`, kind)
      const probe = await startCoverageProbe()
      let ran: Set<string>
      try {
        await pipeline.payAndAwaitInvoicePaid()
        ran = await probe.filesRun()
      } finally {
        await probe.stop()
      }
      const ours = [...ran].filter((file) => !NOT_BANKREC_PATH.some((prefix) => file.startsWith(prefix)))
      const doc = architecture()
      const otherBackend = BACKEND_ONLY[kind === 'postgres' ? 'redis' : 'postgres']
      const listed = [...doc.path].filter((file) => file !== otherBackend && !file.startsWith('src/matcher/'))

      expect(listed.filter((file) => !ran.has(file))).toEqual([])
      const named = new Set([...doc.path, ...doc.after, ...doc.passedThrough])
      expect(ours.filter((file) => !named.has(file)).sort()).toEqual([])
      expect(ours.filter((file) => file.startsWith('src/sidecar/') && doc.path.has(file))).toEqual([])
    }, 90_000)
  },
)
