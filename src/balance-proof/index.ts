export { createAccountProver, proveAccountDays } from './prove-account-days.js'
export type {
  AccountProver,
  BalanceProblemCode,
  PreviousBalance,
  ProofDay,
  ProofDayInput,
} from './prove-account-days.js'
export { sumPostedByDay } from './sum-posted-by-day.js'
export type { ProofTransaction } from './sum-posted-by-day.js'
export { streamBalanceProof } from './stream-balance-proof.js'
export type { AccountProofDay } from './stream-balance-proof.js'
export { checkConnectionBalances } from './check-connection-balances.js'
export type { BalanceCheckDeps, BalanceCheckResult } from './check-connection-balances.js'
export { balanceCheckAfterSync } from './balance-check-after-sync.js'
export { writeBalanceProofJson, writeBalanceProofText } from './write-balance-proof.js'
export type { BalanceProofSummary } from './write-balance-proof.js'
