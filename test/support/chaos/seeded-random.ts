/** A small seeded PRNG (mulberry32) for repeatable chaos scenarios; `fork` gives an independent stream. */
export type SeededRandom = {
  readonly seed: number
  /** A number in [0, 1). */
  next(): number
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number
  chance(probability: number): boolean
  pick<T>(items: readonly T[]): T
  fork(label: string): SeededRandom
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  const random: SeededRandom = {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick(items) {
      if (items.length === 0) throw new Error('cannot pick from an empty list')
      return items[Math.floor(next() * items.length)]!
    },
    fork(label) {
      let hash = seed >>> 0
      for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
      return seededRandom(hash)
    },
  }
  return random
}

/** CHAOS_SEED from the environment (to replay a failure), else a fresh one. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CHAOS_SEED
  if (given !== undefined && /^\d+$/.test(given)) return Number(given)
  return Math.floor(Math.random() * 2 ** 31)
}
