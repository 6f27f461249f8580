export { MatcherInputError } from './allocate.js'
export { compareCanonical, latestVersions, transactionPhase } from './canonical-order.js'
export type { TransactionPhase } from './canonical-order.js'
export {
  DEFAULT_MATCH_CONFIG,
  feeTolerance,
  matchConfig,
  withinFeeTolerance,
  writeOffAccountFor,
} from './config.js'
export type { CurrencyTolerance, FeeTolerance, MatchConfig, MatchConfigInput } from './config.js'
export { explainShortfall, statedFee } from './residuals.js'
export type { Shortfall, StatedFee } from './residuals.js'
export { findReferences, referencedInvoiceIds, referenceStrength } from './find-references.js'
export type {
  HitKind,
  ReferenceHit,
  ReferenceSource,
  TextConflict,
  TransactionReferences,
} from './find-references.js'
export { accountMatches, accountTail, compactAccount, parseMaskedAccount } from './bank-account.js'
export type { MaskedAccount } from './bank-account.js'
export {
  isValidFinnish,
  isValidKid,
  isValidOgm,
  isValidQrr,
  isValidRf,
  validSchemes,
  SCHEME_NAMES,
} from './check-digits.js'
export type { ReferenceScheme } from './check-digits.js'
export { CustomerDirectory } from './customer-directory.js'
export { INTERMEDIARIES, isIntermediaryName } from './intermediaries.js'
export type { PayerHow, PayerIdentity } from './customer-directory.js'
export { customerKeyOf, invoiceUnits } from './invoice-facts.js'
export type { CustomerKey } from './invoice-facts.js'
export { DEFAULT_AUTO_APPLY_THRESHOLD, POINTS } from './evidence.js'
export { compactReference, kidDashAt, numberParts } from './invoice-number.js'
export type { NumberParts } from './invoice-number.js'
export { RETURN_REASONS, returnSignals } from './returns.js'
export { invoiceMatchKeys, normalizedInvoiceNumber, referenceTypos, typoVariants } from './match-keys.js'
export { STRUCTURED_LABELS } from './reference-words.js'
export { InvoiceIndex } from './invoice-index.js'
export { SCALE, formatUnits, toUnits } from './money.js'
export type { Money } from './money.js'
export { LEGAL_FORMS, mayBeCut, nameKey, nameLookupKeys, normalizeName } from './normalize-name.js'
export type { NameKey } from './normalize-name.js'
export { normalizeReference } from './normalize-reference.js'
export type { ReferencePart } from './normalize-reference.js'
export { paymentOutcome } from './payment-outcome.js'
export type { PaymentOutcome } from './payment-outcome.js'
export { matchPayments } from './match-payments.js'
export type { MatchPaymentsInput, MatchPaymentsResult } from './match-payments.js'
export { isValidRfReference, rfCheckDigits } from './rf-reference.js'
export { suggestMatch, suggestionKey } from './suggest.js'
export type { Suggestion, SuggestionCandidate } from './suggest.js'
export { tokenKey, tokenize } from './tokenize.js'
export { unwrapRemittance } from './unwrap-remittance.js'
export type { TokenList } from './tokenize.js'
export { invoiceEventType } from './invoice-events.js'
export { matchTransferLegs } from './transfer-legs.js'
export type { MatchTransfer, TransferLegs, TransferLegsResult } from './transfer-legs.js'
export { REFERENCE_FIELDS, WRITE_OFF_REASONS } from './types.js'
export type {
  Allocation,
  AllocationRule,
  DispositionKind,
  Evidence,
  InvoiceState,
  InvoiceStatus,
  ManualAllocation,
  MatchCustomer,
  MatchException,
  MatchExceptionType,
  MatchInvoice,
  MatchTransaction,
  MatchTransactionStatus,
  PaymentDisposition,
  PaymentReturn,
  ReferenceField,
  ReferenceVia,
  RejectedSuggestion,
  WriteOffReason,
} from './types.js'
