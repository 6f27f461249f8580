/** A seeded pseudo-random source: the same seed gives the same sandbox data. */
export type Random = {
  /** A float in [0, 1). */
  next(): number
  int(minInclusive: number, maxInclusive: number): number
  pick<T>(items: readonly T[]): T
  chance(probability: number): boolean
  /** A version-4-shaped UUID drawn from this source. */
  uuid(): string
  hex(bytes: number): string
  /** An independent source derived from this one and a label, so adding draws in one place leaves others alone. */
  fork(label: string): Random
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function hashLabel(seed: number, label: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619) >>> 0
  return h
}

export function createRandom(seed: number): Random {
  const next = mulberry32(seed)
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new RangeError('cannot pick from an empty list')
      return items[Math.floor(next() * items.length)]!
    },
    chance: (probability) => next() < probability,
    hex: (bytes) => {
      let out = ''
      for (let i = 0; i < bytes; i++)
        out += Math.floor(next() * 256)
          .toString(16)
          .padStart(2, '0')
      return out
    },
    uuid: () => {
      const h = random.hex(16).split('')
      h[12] = '4'
      h[16] = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)
      const s = h.join('')
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`
    },
    fork: (label) => createRandom(hashLabel(seed, label)),
  }
  return random
}
