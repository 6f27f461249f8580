import type { SandboxContext } from '../context.js'
import type { Random } from '../random.js'

const streams = new WeakMap<Random, Map<string, Random>>()

/**
 * A persistent random stream for one purpose. `Random.fork(label)` restarts the same sequence on every call, so
 * draws that continue across requests (ids, later syncs) keep their stream here. Keyed by the context's random
 * source, so a reset (which replaces it) starts every stream afresh and the same seed repeats the same data.
 */
export function randomStream(ctx: SandboxContext, label: string): Random {
  let byLabel = streams.get(ctx.random)
  if (!byLabel) {
    byLabel = new Map()
    streams.set(ctx.random, byLabel)
  }
  let stream = byLabel.get(label)
  if (!stream) {
    stream = ctx.random.fork(label)
    byLabel.set(label, stream)
  }
  return stream
}
