export type ChaosProfileName = 'ci' | 'long'

export type ChaosProfile = {
  invoices: number
  /** Connections, spread over `entities` entities. */
  connections: number
  entities: number
  /** How long the faults, kills and bank changes last before quiescence. */
  chaosSeconds: number
  /** A worker is SIGKILLed after a random pause in this range (seconds), then restarted. */
  killEverySeconds: [number, number]
  /** Connections sent to reauthRequired and back, one incident each. */
  reauthEpisodes: number
  /** Internal transfers created through bankrec's API. */
  transfers: number
  /** The bank's own syncs (new activity, pending lines settling or voided). */
  bankSyncs: number
  /** Random changes to transactions that are not chaos payments (the bank's history). */
  otherChanges: number
  quiesceTimeoutMs: number
}

export const CHAOS_PROFILES: Record<ChaosProfileName, ChaosProfile> = {
  ci: {
    invoices: 1_000,
    connections: 4,
    entities: 3,
    chaosSeconds: 40,
    killEverySeconds: [3, 6],
    reauthEpisodes: 3,
    transfers: 4,
    bankSyncs: 2,
    otherChanges: 20,
    // On this 2-core machine shared with other test runs (load average 40), quiescence took 117 s.
    quiesceTimeoutMs: 180_000,
  },
  long: {
    invoices: 5_000,
    connections: 6,
    entities: 3,
    chaosSeconds: 320,
    killEverySeconds: [2, 6],
    reauthEpisodes: 12,
    transfers: 24,
    bankSyncs: 8,
    otherChanges: 200,
    quiesceTimeoutMs: 240_000,
  },
}
