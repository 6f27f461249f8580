import { sql, type Kysely, type Selectable } from 'kysely'
import type { TransferTracking } from '../alerts/index.js'
import type { Transfer } from '../api-client/index.js'
import type { BankRefusal, Database, TransferAttemptsTable, TransfersTable } from './database.js'
import { anyOf } from './any-of.js'

export type TransferRow = Selectable<TransfersTable>
export type TransferAttemptRow = Selectable<TransferAttemptsTable>

export type NewTransferRequest = {
  id: string
  idempotencyKey: string
  request: Record<string, unknown>
  fingerprint: string
  clientReference: string
  amount: string
  currency: string
  sourceAccountId: string
  destinationAccountId: string
  now: Date
}

/**
 * Stores a transfer request and its create attempt before the bank is called. When the idempotency key is
 * already stored, nothing is written and the existing record is returned with `created: false`.
 */
export async function storeTransferRequest(
  db: Kysely<Database>,
  request: NewTransferRequest,
): Promise<{ row: TransferRow; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('transfers')
      .values({
        id: request.id,
        idempotency_key: request.idempotencyKey,
        request: JSON.stringify(request.request),
        request_fingerprint: request.fingerprint,
        client_reference: request.clientReference,
        amount: request.amount,
        currency: request.currency,
        source_account_id: request.sourceAccountId,
        destination_account_id: request.destinationAccountId,
        status: 'submitting',
        created_at: request.now,
        updated_at: request.now,
      })
      .onConflict((oc) => oc.column('idempotency_key').doNothing())
      .returningAll()
      .executeTakeFirst()
    if (!inserted) {
      const existing = await trx
        .selectFrom('transfers')
        .selectAll()
        .where('idempotency_key', '=', request.idempotencyKey)
        .executeTakeFirstOrThrow()
      return { row: existing, created: false }
    }
    await insertTransferAttempt(trx, {
      idempotencyKey: request.idempotencyKey,
      transferId: request.id,
      kind: 'create',
      now: request.now,
    })
    return { row: inserted, created: true }
  })
}

/** A transfer by bankrec's id or by the bank's transfer id. */
export async function findTransfer(db: Kysely<Database>, id: string): Promise<TransferRow | undefined> {
  return db
    .selectFrom('transfers')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', id), eb('bank_transfer_id', '=', id)]))
    .executeTakeFirst()
}

export async function listTransferAttempts(
  db: Kysely<Database>,
  transferId: string,
): Promise<TransferAttemptRow[]> {
  return db
    .selectFrom('transfer_attempts')
    .selectAll()
    .where('transfer_id', '=', transferId)
    .orderBy('created_at')
    .orderBy('idempotency_key')
    .execute()
}

/** Which transfers a list shows; `accountId` is the source or the destination. */
export type TransferFilter = { status?: string; accountId?: string }

/** A listed transfer and where it sits in the list: `createdAt` as PostgreSQL's text keeps its microseconds. */
export type TransferPageItem = { row: TransferRow; position: { createdAt: string; id: string } }

/** Up to `limit` transfers, newest first by (created_at, id), after the position `before` when given. */
export async function readTransfersPage(
  db: Kysely<Database>,
  filter: TransferFilter,
  before: { createdAt: string; id: string } | null,
  limit: number,
): Promise<TransferPageItem[]> {
  let query = db
    .selectFrom('transfers')
    .selectAll()
    .select(sql<string>`created_at::text`.as('created_text'))
  if (filter.status) query = query.where('status', '=', filter.status)
  const { accountId } = filter
  if (accountId) {
    query = query.where((eb) =>
      eb.or([eb('source_account_id', '=', accountId), eb('destination_account_id', '=', accountId)]),
    )
  }
  if (before) {
    query = query.where(sql<boolean>`(created_at, id) < (${before.createdAt}::timestamptz, ${before.id})`)
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
  return rows.map(({ created_text, ...row }) => ({ row, position: { createdAt: created_text, id: row.id } }))
}

/** The attempts of several transfers in one query, oldest first, by transfer id; a transfer with none is absent. */
export async function listAttemptsOfTransfers(
  db: Kysely<Database>,
  transferIds: readonly string[],
): Promise<Map<string, TransferAttemptRow[]>> {
  const byTransfer = new Map<string, TransferAttemptRow[]>()
  if (transferIds.length === 0) return byTransfer
  const rows = await db
    .selectFrom('transfer_attempts')
    .selectAll()
    .where('transfer_id', '=', anyOf(transferIds))
    .orderBy('created_at')
    .orderBy('idempotency_key')
    .execute()
  for (const row of rows) {
    const attempts = byTransfer.get(row.transfer_id)
    if (attempts) attempts.push(row)
    else byTransfer.set(row.transfer_id, [row])
  }
  return byTransfer
}

export async function insertTransferAttempt(
  db: Kysely<Database>,
  attempt: { idempotencyKey: string; transferId: string; kind: 'create' | 'retry'; now: Date },
): Promise<void> {
  await db
    .insertInto('transfer_attempts')
    .values({
      idempotency_key: attempt.idempotencyKey,
      transfer_id: attempt.transferId,
      kind: attempt.kind,
      state: 'pending',
      created_at: attempt.now,
    })
    .execute()
}

/** Closes an attempt: answered by the bank, or refused with the bank's error. */
export async function closeTransferAttempt(
  db: Kysely<Database>,
  idempotencyKey: string,
  outcome: { state: 'answered' } | { state: 'rejected'; error: BankRefusal },
  at: Date,
): Promise<void> {
  await db
    .updateTable('transfer_attempts')
    .set({
      state: outcome.state,
      error: outcome.state === 'rejected' ? JSON.stringify(outcome.error) : null,
      answered_at: at,
    })
    .where('idempotency_key', '=', idempotencyKey)
    .execute()
}

/**
 * Records the bank's transfer as answered to a create or retry; the tracker polls it from `nextPollAt`. With
 * `tracking`, the tracker's state is replaced too (a retry starts a new attempt at the same transfer).
 */
export async function recordBankAnswer(
  db: Kysely<Database>,
  id: string,
  transfer: Transfer,
  options: { now: Date; nextPollAt: Date; tracking?: TransferTracking | null },
): Promise<TransferRow> {
  return db
    .updateTable('transfers')
    .set({
      bank_transfer_id: transfer.id,
      status: transfer.status,
      failure_reason: transfer.failureReason ? JSON.stringify(transfer.failureReason) : null,
      executed_amount: transfer.executedAmount ? JSON.stringify(transfer.executedAmount) : null,
      rejection: null,
      bank_updated_at: transfer.updatedAt,
      poll_attempt: 0,
      next_poll_at: options.nextPollAt,
      updated_at: options.now,
      ...(options.tracking === undefined
        ? {}
        : { tracking: options.tracking === null ? null : JSON.stringify(options.tracking) }),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** The bank refused the create request: no transfer exists at the bank. */
export async function recordTransferRejected(
  db: Kysely<Database>,
  id: string,
  refusal: BankRefusal,
  now: Date,
): Promise<TransferRow> {
  return db
    .updateTable('transfers')
    .set({ status: 'rejected', rejection: JSON.stringify(refusal), next_poll_at: null, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/**
 * Claims up to `limit` transfers due for a poll by moving their next poll to `leaseUntil`, so another worker
 * scanning at the same time skips them; a worker that dies mid-poll leaves them due again after the lease.
 */
export async function claimDueTransfers(
  db: Kysely<Database>,
  options: { now: Date; leaseUntil: Date; limit: number },
): Promise<TransferRow[]> {
  return db
    .updateTable('transfers')
    .set({ next_poll_at: options.leaseUntil })
    .where(
      'id',
      'in',
      db
        .selectFrom('transfers')
        .select('id')
        .where('next_poll_at', '<=', options.now)
        .where('bank_transfer_id', 'is not', null)
        .orderBy('next_poll_at')
        .limit(options.limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute()
}

/** Reads a transfer and locks it until the transaction ends. */
export async function lockTransfer(db: Kysely<Database>, id: string): Promise<TransferRow | undefined> {
  return db.selectFrom('transfers').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/** What one poll changes: the bank's view, the tracker's state and when to look again. */
export type TransferObservationUpdate = {
  transfer: Transfer
  tracking: TransferTracking
  pollAttempt: number
  nextPollAt: Date | null
  now: Date
}

export async function saveTransferObservation(
  db: Kysely<Database>,
  id: string,
  update: TransferObservationUpdate,
): Promise<TransferRow> {
  const { transfer } = update
  return db
    .updateTable('transfers')
    .set({
      status: transfer.status,
      failure_reason: transfer.failureReason ? JSON.stringify(transfer.failureReason) : null,
      executed_amount: transfer.executedAmount ? JSON.stringify(transfer.executedAmount) : null,
      bank_updated_at: transfer.updatedAt,
      completed_at: transfer.status === 'completed' ? sql<Date>`coalesce(completed_at, ${update.now})` : null,
      tracking: JSON.stringify(update.tracking),
      poll_attempt: update.pollAttempt,
      next_poll_at: update.nextPollAt,
      updated_at: update.now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Pushes the next poll back after a failed one. */
export async function postponeTransferPoll(
  db: Kysely<Database>,
  id: string,
  options: { pollAttempt: number; nextPollAt: Date },
): Promise<void> {
  await db
    .updateTable('transfers')
    .set({ poll_attempt: options.pollAttempt, next_poll_at: options.nextPollAt })
    .where('id', '=', id)
    .execute()
}

/** The portal of the connection that holds an account, where approvals happen; null when not mirrored. */
export async function portalUrlOfAccount(db: Kysely<Database>, accountId: string): Promise<string | null> {
  const row = await db
    .selectFrom('accounts')
    .innerJoin('connections', 'connections.id', 'accounts.connection_id')
    .select('connections.portal_url')
    .where('accounts.id', '=', accountId)
    .executeTakeFirst()
  return row?.portal_url ?? null
}
