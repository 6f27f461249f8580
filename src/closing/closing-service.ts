import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import { NO_APPROVALS, ledgerChartOf } from '../controls/index.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from '../matcher/index.js'
import type { MatchingService } from '../matching/index.js'
import type { Database, DispositionRow, MatchTransactionRow, RemittanceImportRow } from '../store/index.js'
import type { Actor } from '../users/index.js'
import { decideDisposition, undoDisposition } from './disposition-decisions.js'
import { dispose, type Controls, type DispositionRequest } from './dispositions.js'
import { writeOffInvoice, type InvoiceWriteOffRequest } from './invoice-write-offs.js'
import { matchReport } from './match-report.js'
import {
  acceptSuggestion,
  addManualMatch,
  declineSuggestion,
  giveBack,
  removeAllocation,
  type ManualMatchMode,
  type PersonInputDeps,
} from './person-inputs.js'
import { decideRemittance } from './remittance-decisions.js'
import { importRemittance, type RemittanceAdvice, type RemittanceResult } from './remittance.js'

export type ClosingServiceDeps = {
  db: Kysely<Database>
  /** The store's schema: scopes the matching lock a person's input holds. */
  schema: string
  clock: Clock
  /** The run each action is followed by, so the answer shows what the engine made of it. */
  matching: Pick<MatchingService, 'runNow'>
  config?: MatchConfig
  /** The approval policy and the chart of accounts (issue 26); default: nothing waits, the default chart. */
  controls?: Controls
}

/** A person's closing work as the sidecar uses it (SidecarContext.closing), each input recorded with `actor`. */
export type ClosingService = {
  /** A person's match (audit log, manual match, the allocation it produces). */
  manualMatch(
    input: { transactionId: string; invoiceId: string; amount?: string; mode?: ManualMatchMode },
    actor: Actor,
  ): Promise<void>
  /** Settles a bank line by its remittance advice (all its matches and the fee write-off, or nothing). */
  importRemittance(
    transactionId: string,
    advice: RemittanceAdvice | ((transaction: MatchTransactionRow) => RemittanceAdvice),
    actor: Actor,
  ): Promise<RemittanceResult>
  unmatch(allocationId: string, actor: Actor): Promise<{ transactionId: string }>
  /** Removes a person's matches of a transaction: the engine matches it again. */
  giveBack(transactionId: string, actor: Actor): Promise<{ removed: number }>
  dispose(key: string, request: DispositionRequest, actor: Actor): Promise<DispositionRow>
  /** Writes (part of) an invoice's open rest off: a disposition of the invoice. */
  writeOffInvoice(invoiceId: string, request: InvoiceWriteOffRequest, actor: Actor): Promise<DispositionRow>
  decideDisposition(
    id: string,
    decision: 'approve' | 'decline',
    actor: Actor,
    note?: string,
  ): Promise<DispositionRow>
  undoDisposition(id: string, actor: Actor): Promise<DispositionRow>
  /** Approves or declines (withdraws) a remittance import waiting for approval. */
  decideRemittance(
    id: string,
    decision: 'approve' | 'decline',
    actor: Actor,
    note?: string,
  ): Promise<RemittanceImportRow>
  acceptSuggestion(key: string, actor: Actor): Promise<{ transactionId: string }>
  rejectSuggestion(key: string, actor: Actor): Promise<{ transactionId: string }>
  /** Share of all inflows fully matched, for the bankrec_match_rate gauge; NaN without inflows. */
  matchRate(): Promise<number>
}

export function createClosingService(deps: ClosingServiceDeps): ClosingService {
  const config = deps.config ?? DEFAULT_MATCH_CONFIG
  const controls: Controls = deps.controls ?? {
    policy: NO_APPROVALS,
    chart: ledgerChartOf(undefined, { account: config.writeOffAccount, byReason: config.writeOffAccounts }),
  }
  const person = (actor: Actor): PersonInputDeps & { controls: Controls } => ({
    db: deps.db,
    lockNamespace: deps.schema,
    now: deps.clock.now(),
    actor,
    controls,
  })
  /** A person's action, then a matching run, so the answer shows what the engine made of it. */
  const afterwardsRun = async <T>(action: Promise<T>): Promise<T> => {
    const result = await action
    await deps.matching.runNow()
    return result
  }
  return {
    manualMatch: (input, actor) => afterwardsRun(addManualMatch(person(actor), input)),
    importRemittance: (transactionId, advice, actor) =>
      afterwardsRun(importRemittance({ ...person(actor), config }, transactionId, advice)),
    decideRemittance: (id, decision, actor, note) =>
      afterwardsRun(decideRemittance(person(actor), id, decision, note)),
    unmatch: (allocationId, actor) => afterwardsRun(removeAllocation(person(actor), allocationId)),
    giveBack: (transactionId, actor) => afterwardsRun(giveBack(person(actor), transactionId)),
    dispose: (key, request, actor) => afterwardsRun(dispose(person(actor), key, request)),
    writeOffInvoice: (invoiceId, request, actor) =>
      afterwardsRun(writeOffInvoice({ ...person(actor), config }, invoiceId, request)),
    decideDisposition: (id, decision, actor, note) =>
      afterwardsRun(decideDisposition(person(actor), id, decision, note)),
    undoDisposition: (id, actor) => afterwardsRun(undoDisposition(person(actor), id)),
    acceptSuggestion: (key, actor) => afterwardsRun(acceptSuggestion(person(actor), key)),
    rejectSuggestion: (key, actor) => afterwardsRun(declineSuggestion(person(actor), key)),
    async matchRate() {
      const report = await matchReport(deps.db, { asOf: deps.clock.now() })
      return report.matchRate ?? Number.NaN
    },
  }
}
