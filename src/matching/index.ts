export { createMatchingService } from './matching-service.js'
export type { MatchingService, MatchingServiceDeps } from './matching-service.js'
export { createMatchInPlace } from './match-in-place.js'
export type { MatchInPlace } from './match-in-place.js'
export { runMatching, runMatchingWithin, matchClosedSet, matchLockName } from './run-matching.js'
export type { MatchingDeps, MatchRunSummary } from './run-matching.js'
export { rejectionIdsOf } from './apply-match-result.js'
export { loadClosedSet } from './load-closed-set.js'
export { matchInvoiceOf } from './store-shapes.js'
export {
  candidateKeys,
  customerPayerKeys,
  linkKey,
  numberKey,
  payerKey,
  payerKeys,
} from './candidate-keys.js'
export {
  AUTO_APPLY_MODES,
  AUTO_APPLY_SETTING,
  AutoApplyModeSchema,
  changeAutoApplyMode,
  readAutoApplyMode,
} from './auto-apply-mode.js'
export type { AutoApplyMode, AutoApplyState } from './auto-apply-mode.js'
export { trustReport, TrustReportRequest, TRUST_REPORT_LIST_LIMIT } from './trust-report.js'
export type { TrustLine, TrustReport, UndoneLine } from './trust-report.js'
export type { TrustOutcome, TrustVerdict } from './trust-verdict.js'
