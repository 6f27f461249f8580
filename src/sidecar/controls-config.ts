import type { BankrecEnv } from '../config/index.js'
import { ledgerChartOf, type ApprovalPolicy, type LedgerChart } from '../controls/index.js'

/** The approval policy and chart of accounts the environment sets (the sidecar's and the CLI's). */
export function controlsOf(config: BankrecEnv): { policy: ApprovalPolicy; chart: LedgerChart } {
  return {
    policy: {
      threshold: config.APPROVAL_THRESHOLD_AMOUNT ?? null,
      windowHours: config.APPROVAL_WINDOW_HOURS,
      builtinAdminMayApprove: config.APPROVAL_BUILTIN_ADMIN_MAY_APPROVE,
    },
    chart: ledgerChartOf(config.LEDGER_ACCOUNTS, {
      account: config.MATCH_WRITE_OFF_ACCOUNT,
      byReason: config.MATCH_WRITE_OFF_ACCOUNTS ?? {},
    }),
  }
}
