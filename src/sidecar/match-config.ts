import type { BankrecEnv } from '../config/index.js'
import { matchConfig, type MatchConfig } from '../reconcile/index.js'

/** The matching configuration the environment sets (the sidecar's, the CLI's and the dry run's present one). */
export function matchConfigOf(config: BankrecEnv): MatchConfig {
  return matchConfig({
    transferLegWindowSeconds: config.TRANSFER_LEG_WINDOW_SECONDS,
    autoApplyThreshold: config.MATCH_AUTO_APPLY_THRESHOLD,
  })
}
