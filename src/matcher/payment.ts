import type { TransactionPhase } from './canonical-order.js'
import type { MatchTransaction } from './types.js'

/** A transaction being allocated, with its amount in money units and its phase. */
export type Payment = { transaction: MatchTransaction; amount: bigint; phase: TransactionPhase }
