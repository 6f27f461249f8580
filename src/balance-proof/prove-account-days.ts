import { Decimal } from 'decimal.js'

/** Sums and differences of money never round: 1,000 significant digits covers any bank amount. */
const Exact = Decimal.clone({ precision: 1_000 })

/** One day of one account as the store aggregates it. */
export type ProofDayInput = {
  /** ISO calendar date. */
  date: string
  /** Sum of the mirrored posted transactions of the day; null when the mirror has none. */
  mirroredPostedSum: string | null
  /** The bank's postedTransactionDelta; null when the mirror holds no balance row for the day. */
  bankDelta: string | null
  ledgerBalance: string | null
}

/** The latest balance row before the first day proved (its ledger balance anchors the continuity check). */
export type PreviousBalance = { date: string; ledgerBalance: string }

export type BalanceProblemCode = 'posted_sum_mismatch' | 'ledger_discontinuity' | 'missing_balance_row'

export type ProofDay = {
  accountId: string
  date: string
  mirroredPostedSum: string
  bankDelta: string | null
  ledgerBalance: string | null
  /** The ledger balance of the balance row before this one (null for the account's first row). */
  previousLedgerBalance: string | null
  ok: boolean
  /** What does not add up, in words; null when the day adds up. */
  problem: string | null
  problemCodes: BalanceProblemCode[]
}

export type AccountProver = { prove(day: ProofDayInput): ProofDay }

/**
 * The balance proof of one account, one day at a time in date order (so a caller can stream days from the
 * store): the mirrored posted transactions of a day must sum to the bank's postedTransactionDelta, and each
 * ledgerBalance must differ from the previous row's by the later day's delta. Pure: no I/O, exact decimals.
 */
export function createAccountProver(
  accountId: string,
  previous: PreviousBalance | null = null,
): AccountProver {
  let last = previous
  return {
    prove(day) {
      if (last && day.date <= last.date) {
        throw new RangeError(
          `balance proof days must come in ascending date order (${day.date} after ${last.date})`,
        )
      }
      const mirrored = new Exact(day.mirroredPostedSum ?? 0)
      const codes: BalanceProblemCode[] = []
      const words: string[] = []
      const previousLedgerBalance = day.bankDelta === null ? null : (last?.ledgerBalance ?? null)
      if (day.bankDelta === null || day.ledgerBalance === null) {
        codes.push('missing_balance_row')
        words.push(
          `mirrored posted transactions sum to ${mirrored.toFixed()} but there is no balance row for the day`,
        )
      } else {
        const delta = new Exact(day.bankDelta)
        if (!mirrored.equals(delta)) {
          codes.push('posted_sum_mismatch')
          words.push(
            `mirrored posted transactions sum to ${mirrored.toFixed()}, the bank's postedTransactionDelta is ` +
              `${delta.toFixed()} (difference ${mirrored.minus(delta).toFixed()})`,
          )
        }
        if (last) {
          const moved = new Exact(day.ledgerBalance).minus(last.ledgerBalance)
          if (!moved.equals(delta)) {
            codes.push('ledger_discontinuity')
            words.push(
              `ledgerBalance ${day.ledgerBalance} minus the ${last.date} row's ${last.ledgerBalance} is ` +
                `${moved.toFixed()}, not the day's delta ${delta.toFixed()}`,
            )
          }
        }
        last = { date: day.date, ledgerBalance: day.ledgerBalance }
      }
      return {
        accountId,
        date: day.date,
        mirroredPostedSum: day.mirroredPostedSum ?? '0',
        bankDelta: day.bankDelta,
        ledgerBalance: day.ledgerBalance,
        previousLedgerBalance,
        ok: codes.length === 0,
        problem: words.length === 0 ? null : words.join('; '),
        problemCodes: codes,
      }
    },
  }
}

/** The whole proof of one account's days at once (days in ascending date order). */
export function proveAccountDays(
  accountId: string,
  days: Iterable<ProofDayInput>,
  previous: PreviousBalance | null = null,
): ProofDay[] {
  const prover = createAccountProver(accountId, previous)
  return Array.from(days, (day) => prover.prove(day))
}
