/**
 * `npx tsx bench/cpu-profile-top.ts <file.cpuprofile> [top] [first-request-frame]`: where a process's CPU went
 * under load, from a V8 CPU profile (`node --cpu-prof`, e.g. the `bankrec receiver` of `BENCH_CPU_PROF=dir npm run
 * bench:receiver`). Samples before the first one whose stack holds a frame of a file matching first-request-frame
 * (default `express/lib/application.js`, the first request of an express app; `src/receiver/read-body` for
 * `bankrec receiver`, whose webhooks skip express, `bench/minimal-receiver/handler` for a minimal receiver) are
 * start-up and left out, as are idle and "(program)" samples. Prints:
 *   - the top frames by self time (function, file:line);
 *   - the time per part of the stack: each sample goes to the nearest frame, from the leaf up, that belongs to a
 *     named part (a package, a folder of src/, JSON, GC), so node's own internals count to whoever called them.
 */
import { readFileSync } from 'node:fs'

type CallFrame = { functionName: string; url: string; lineNumber: number }
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] }
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Parts of the stack, first match wins; a frame matching none is node's or V8's own and defers to its caller. */
const PARTS: Array<[string, (frame: CallFrame) => boolean]> = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['JSON parse/stringify', (f) => f.url === '' && ['parse', 'stringify'].includes(f.functionName)],
  ['helmet (security headers)', (f) => f.url.includes('/node_modules/helmet/')],
  [
    'express app + router',
    (f) => /\/node_modules\/(express|router|path-to-regexp|finalhandler)\//.test(f.url),
  ],
  [
    'express helpers (send, on-finished, …)',
    (f) =>
      /\/node_modules\/(on-finished|send|content-type|type-is|mime-types|statuses|depd|parseurl|encodeurl|escape-html|vary|qs|accepts|negotiator)\//.test(
        f.url,
      ),
  ],
  ['raw-body / iconv', (f) => /\/node_modules\/(raw-body|iconv-lite|bytes|http-errors)\//.test(f.url)],
  ['API error mapper', (f) => f.url.includes('/src/sidecar/api-error')],
  [
    'request observation (span, access log, metrics)',
    (f) => /\/src\/sidecar\/(http-observability|traffic-metrics)/.test(f.url),
  ],
  ['OpenTelemetry', (f) => f.url.includes('/@opentelemetry/') || f.url.includes('/src/observability/')],
  ['pino logging', (f) => /\/node_modules\/(pino|sonic-boom|thread-stream)/.test(f.url)],
  [
    'prom-client metrics',
    (f) => f.url.includes('/node_modules/prom-client/') || f.url.includes('/src/receiver/metrics'),
  ],
  ['other sidecar middleware (request id, drain, …)', (f) => f.url.includes('/src/sidecar/')],
  ['HMAC (signing)', (f) => f.url.includes('/src/signing/')],
  [
    'zod (envelope check)',
    (f) => f.url.includes('/node_modules/zod/') || f.url.includes('/src/webhook-envelope/'),
  ],
  [
    'queue write: ioredis',
    (f) =>
      /\/node_modules\/(ioredis|redis-parser|denque|cluster-key-slot|standard-as-callback)\//.test(f.url),
  ],
  [
    'queue write: pg / kysely / bullmq',
    (f) => /\/node_modules\/(pg|pg-protocol|pg-pool|kysely|bullmq|msgpackr)/.test(f.url),
  ],
  ['queue write: src/queue', (f) => f.url.includes('/src/queue/')],
  ['receiver (src/receiver)', (f) => f.url.includes('/src/receiver/')],
  ['other src/', (f) => f.url.includes('/src/')],
  ['other packages', (f) => f.url.includes('/node_modules/')],
]

const file = process.argv[2]
if (!file) throw new Error('usage: tsx bench/cpu-profile-top.ts <file.cpuprofile> [top]')
const top = Number(process.argv[3] ?? 25)
const firstRequestFrame = process.argv[4] ?? 'express/lib/application.js'
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

const inRequest = (id: number): boolean => {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
    if (byId.get(at)!.callFrame.url.includes(firstRequestFrame)) return true
  return false
}
const first = profile.samples.findIndex(inRequest)
if (first < 0) throw new Error(`no sample has a frame of ${firstRequestFrame}`)
const selfUs = new Map<number, number>()
profile.samples.forEach((id, i) => {
  if (i >= first) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
})
const skipped = new Set(['(idle)', '(program)', '(root)'])
let busyUs = 0
for (const [id, us] of selfUs) if (!skipped.has(byId.get(id)!.callFrame.functionName)) busyUs += us

const short = (url: string) => url.replace(/^.*?\/(node_modules|src)\//, '$1/').replace(/^node:/, 'node:')
const pct = (us: number) => `${((us / busyUs) * 100).toFixed(1).padStart(5)}%`

const frames = new Map<string, number>()
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame
  if (skipped.has(f.functionName)) continue
  const key = `${f.functionName || '(anonymous)'}  ${short(f.url) || '(native)'}:${f.lineNumber + 1}`
  frames.set(key, (frames.get(key) ?? 0) + us)
}
console.log(
  `${file}: ${(busyUs / 1e6).toFixed(2)} s of CPU outside idle from the first request on\n\ntop frames by self time`,
)
for (const [key, us] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${pct(us)}  ${key}`)

const parts = new Map<string, number>()
for (const [id, us] of selfUs) {
  if (skipped.has(byId.get(id)!.callFrame.functionName)) continue
  let part = 'node internals (no app frame above: HTTP parsing, sockets, timers)'
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const match = PARTS.find(([, test]) => test(byId.get(at!)!.callFrame))
    if (match) {
      part = match[0]
      break
    }
  }
  parts.set(part, (parts.get(part) ?? 0) + us)
}
console.log('\nby part (node internals count to their nearest caller)')
for (const [part, us] of [...parts].sort((a, b) => b[1] - a[1])) console.log(`${pct(us)}  ${part}`)
