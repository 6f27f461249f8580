import type { BankrecEnv } from '../config/index.js'
import { matchConfig, type MatchConfig } from '../matcher/index.js'

/** The matching configuration the environment sets (the sidecar's, the CLI's and the dry run's present one). */
export function matchConfigOf(config: BankrecEnv): MatchConfig {
  const amount = config.MATCH_FEE_TOLERANCE_AMOUNT
  const percent = config.MATCH_FEE_TOLERANCE_PERCENT
  const currencies = new Set([
    ...Object.keys(amount?.byCurrency ?? {}),
    ...Object.keys(percent?.byCurrency ?? {}),
  ])
  return matchConfig({
    transferLegWindowSeconds: config.TRANSFER_LEG_WINDOW_SECONDS,
    autoApplyThreshold: config.MATCH_AUTO_APPLY_THRESHOLD,
    autoConfirmThreshold: config.MATCH_AUTO_CONFIRM_THRESHOLD ?? null,
    invoiceDateGraceDays: config.MATCH_INVOICE_DATE_GRACE_DAYS,
    returnHorizonDays: config.MATCH_RETURN_HORIZON_DAYS,
    feeToleranceAbsolute: amount?.all ?? null,
    feeTolerancePercent: percent?.all ?? null,
    feeToleranceByCurrency: Object.fromEntries(
      [...currencies].map((currency) => [
        currency,
        { absolute: amount?.byCurrency[currency], percent: percent?.byCurrency[currency] },
      ]),
    ),
    writeOffAccount: config.MATCH_WRITE_OFF_ACCOUNT,
    writeOffAccounts: config.MATCH_WRITE_OFF_ACCOUNTS ?? {},
  })
}
