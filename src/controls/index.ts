export { decideApproval, NO_APPROVALS } from './approval-policy.js'
export type { ApprovalDecision, ApprovalPolicy, ApprovalThreshold, Counted } from './approval-policy.js'
export { askApprovalPolicy, lockControls } from './ask-policy.js'
export type { ControlledOperation } from './ask-policy.js'
export { assertMayApprove, assertMayUndo, assertMayWithdraw } from './authority.js'
export type { Decided } from './authority.js'
export { normalizeCurrency } from './currency.js'
export {
  ACCOUNT_KINDS,
  accountsOfKind,
  chartAccount,
  DEFAULT_LEDGER_CHART,
  ledgerChartOf,
  parseLedgerChart,
} from './ledger-chart.js'
export type { AccountKind, LedgerChart } from './ledger-chart.js'
