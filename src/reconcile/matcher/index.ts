export { MatcherInputError, referenceConfidence } from './allocate.js'
export { compareCanonical, latestVersions, transactionPhase } from './canonical-order.js'
export type { TransactionPhase } from './canonical-order.js'
export { DEFAULT_MATCH_CONFIG, feeTolerance, matchConfig, withinFeeTolerance } from './config.js'
export type { FeeTolerance, MatchConfig, MatchConfigInput } from './config.js'
export { findReferences } from './find-references.js'
export type { NamedInvoice, ReferenceSource, TransactionReferences } from './find-references.js'
export { InvoiceIndex } from './invoice-index.js'
export { SCALE, formatUnits, toUnits } from './money.js'
export type { Money } from './money.js'
export { LEGAL_SUFFIXES, normalizeName } from './normalize-name.js'
export { normalizeReference } from './normalize-reference.js'
export type { ReferencePart } from './normalize-reference.js'
export { reconcile } from './reconcile.js'
export type { ReconcileInput, ReconcileResult } from './reconcile.js'
export { isValidRfReference, rfCheckDigits } from './rf-reference.js'
export { suggestMatch, suggestionKey } from './suggest.js'
export type { Suggestion, SuggestionCandidate } from './suggest.js'
export { tokenKey, tokenize } from './tokenize.js'
export type { Token } from './tokenize.js'
export { matchTransferLegs } from './transfer-legs.js'
export type { MatchTransfer, TransferLegs, TransferLegsResult } from './transfer-legs.js'
export { REFERENCE_FIELDS } from './types.js'
export type {
  Allocation,
  AllocationRule,
  InvoiceState,
  InvoiceStatus,
  ManualAllocation,
  MatchException,
  MatchExceptionType,
  MatchInvoice,
  MatchTransaction,
  MatchTransactionStatus,
  ReferenceField,
  ReferenceVia,
  RejectedSuggestion,
} from './types.js'
