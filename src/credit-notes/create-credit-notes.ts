import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import {
  askApprovalPolicy,
  assertMayApprove,
  assertMayUndo,
  assertMayWithdraw,
  chartAccount,
  ledgerChartOf,
  lockControls,
  NO_APPROVALS,
  type ApprovalPolicy,
  type LedgerChart,
} from '../controls/index.js'
import { invoiceChangeHooks, InvoiceError, type InvoicesContext } from '../invoices/index.js'
import { openRestOf } from '../closing/index.js'
import {
  appendAudit,
  decideCreditNote,
  getCreditNote,
  insertCreditNote,
  listCreditNotes,
  lockInvoice,
  recomputeCredited,
  voidCreditNote,
  type CreditNoteRow,
  type Database,
} from '../store/index.js'
import { auditActor, builtinAdmin, type Actor } from '../users/index.js'
import { CreditNoteSchema, creditNoteProblems, type CreditNoteInput } from './credit-note-input.js'
import { creditNoteView, type CreditNote } from './credit-note-view.js'

export type CreditNoteUpsertResult = { creditNote: CreditNote; created: boolean; changed: boolean }

/** The credit notes' context: the invoices' plus the approval policy and the chart (default: none, the defaults). */
export type CreditNotesContext = InvoicesContext & {
  controls?: { policy: ApprovalPolicy; chart: LedgerChart }
}

export type CreditNotes = {
  /**
   * Writes a credit note as `actor` (default: the built-in admin): in force at once, or waiting for a second
   * person when the approval policy says so. A note once written is never changed: void it and write another.
   */
  upsert(value: unknown, actor?: Actor): Promise<CreditNoteUpsertResult>
  get(id: string): Promise<CreditNote | undefined>
  /** Up to 500 credit notes in id order after `after`, optionally of one invoice. */
  list(params?: { invoiceId?: string; after?: string; limit?: number }): Promise<CreditNote[]>
  /** Approves (a named approver, not its maker) or declines (an approver or its maker) a waiting credit note. */
  decide(id: string, decision: 'approve' | 'decline', actor: Actor): Promise<CreditNote | undefined>
  /**
   * Voids a credit note in force (the invoice is owed in full again; an approved one only by an approver) or
   * withdraws a waiting one; undefined when there is none with this id.
   */
  void(id: string, actor?: Actor): Promise<CreditNote | undefined>
}

const refused = (code: string, message: string, details?: Array<{ path: string; message: string }>) =>
  new InvoiceError(details ? 'invalid' : 'conflict', code, message, details)

function parse(value: unknown): CreditNoteInput {
  const parsed = CreditNoteSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const details = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.code === 'unrecognized_keys' ? `${issue.message}: not a credit note field` : issue.message,
  }))
  throw refused('validation_error', details.map((d) => `${d.path} ${d.message}`).join('; '), details)
}

/** The same note written again (a retry): nothing changes. */
function sameNote(row: CreditNoteRow, note: CreditNoteInput, customerId: string | null): boolean {
  return (
    row.voided_at === null &&
    row.status !== 'declined' &&
    row.number === note.number &&
    new Decimal(row.amount).equals(note.amount) &&
    row.currency === note.currency &&
    row.customer_id === customerId &&
    row.invoice_id === note.invoiceId
  )
}

/** What the invoice has open for a credit note (0 when nothing), pending write-offs and credit notes aside. */
async function openFor(trx: Kysely<Database>, invoiceId: string, exceptNote: string | null): Promise<string> {
  try {
    return (await openRestOf(trx, invoiceId, null, exceptNote)).rest.toFixed()
  } catch {
    return '0'
  }
}

/**
 * Credit notes netted against their invoice (docs/closing.md): of the invoice's customer and currency, never more
 * than it has open; each is a controlled operation (issue 26): the approval policy decides whether a second person
 * approves it, and every step is audited under the person's name.
 */
export function createCreditNotes(context: CreditNotesContext): CreditNotes {
  const { db } = context.store
  const { afterWrite, notify } = invoiceChangeHooks(context)
  const policy = context.controls?.policy ?? NO_APPROVALS
  const chart = context.controls?.chart ?? ledgerChartOf(undefined, { account: 'write-off', byReason: {} })
  const defaultActor = builtinAdmin('admin')

  const audit = (trx: Kysely<Database>, actor: Actor, action: string, row: CreditNoteRow, extra = {}) =>
    appendAudit(trx, context.clock.now(), [
      {
        ...auditActor(actor),
        action,
        entity: 'credit_note',
        entityId: row.id,
        payload: { ...creditNoteView(row), ...extra },
      },
    ])

  /** Locks the controls, then the invoice (the order every controlled operation takes them in). */
  const lockFor = async (trx: Kysely<Database>, invoiceId: string) => {
    await lockControls(trx)
    return lockInvoice(trx, invoiceId)
  }

  const decide: CreditNotes['decide'] = async (id, decision, actor) => {
    const row = await db.transaction().execute(async (trx) => {
      const found = await getCreditNote(trx, id)
      if (!found) return undefined
      await lockFor(trx, found.invoice_id)
      const note = await getCreditNote(trx, id, { forUpdate: true })
      if (!note || note.status !== 'pending_approval' || note.voided_at !== null) {
        throw refused(
          'credit_note_state',
          `Credit note ${id} is ${note?.status}: only a waiting one is decided.`,
        )
      }
      const document = { madeBy: note.made_by, approvedBy: null }
      if (decision === 'approve') {
        assertMayApprove(policy, document, actor)
        const open = await openFor(trx, note.invoice_id, note.id)
        if (new Decimal(open).lt(note.amount)) {
          throw refused(
            'invoice_changed',
            `Invoice ${note.invoice_id} has only ${open} open now, less than ${note.amount}: decline this credit note.`,
          )
        }
      } else assertMayWithdraw(document, actor)
      const after = await decideCreditNote(
        trx,
        id,
        decision === 'approve' ? 'active' : 'declined',
        actor.name,
        context.clock.now(),
      )
      if (!after) throw refused('credit_note_state', `Credit note ${id} is no longer waiting.`)
      if (decision === 'approve') {
        await recomputeCredited(trx, after.invoice_id)
        await afterWrite?.(trx, [after.invoice_id])
      }
      await audit(trx, actor, decision === 'approve' ? 'credit_note.approved' : 'credit_note.declined', after)
      return after
    })
    if (row?.status === 'active') await notify([row.invoice_id])
    return row && creditNoteView(row)
  }

  return {
    async upsert(value, actor = defaultActor) {
      const note = parse(value)
      const account = chartAccount(chart, 'credit_note', note.account)
      if (!account.ok)
        throw refused('unknown_account', `account ${account.message}`, [
          { path: 'account', message: account.message },
        ])
      const now = context.clock.now()
      const outcome = await db.transaction().execute(async (trx) => {
        const invoice = await lockFor(trx, note.invoiceId)
        const customerId = note.customerId ?? invoice?.customer_id ?? null
        const before = await getCreditNote(trx, note.id, { forUpdate: true })
        if (before && sameNote(before, note, customerId)) return { row: before, created: false }
        if (before) {
          throw refused(
            'credit_note_exists',
            `Credit note ${note.id} exists (${before.voided_at ? 'void' : before.status}) with other fields: a credit ` +
              'note is never changed once written; void it and write a new one with another id.',
          )
        }
        const open = invoice ? await openFor(trx, invoice.id, null) : '0'
        const problems = creditNoteProblems(
          { ...note, customerId: note.customerId },
          invoice && {
            amount: open,
            currency: invoice.currency,
            customerId: invoice.customer_id,
            void: invoice.voided_at !== null,
          },
        )
        if (problems.length > 0) {
          throw refused(
            'credit_note_rejected',
            problems.map((p) => `${p.path} ${p.message}`).join('; '),
            problems,
          )
        }
        const decision = await askApprovalPolicy(trx, policy, {
          amount: note.amount,
          currency: note.currency,
          invoiceIds: [note.invoiceId],
          transactionId: null,
          maker: actor.name,
          now,
        })
        const by = auditActor(actor)
        const row = await insertCreditNote(
          trx,
          {
            ...note,
            customerId,
            account: account.account,
            status: decision.needsSecondPerson ? 'pending_approval' : 'active',
            madeBy: by.actor,
            madeByRole: by.actorRole,
          },
          now,
        )
        if (row.status === 'active') {
          await recomputeCredited(trx, row.invoice_id)
          await afterWrite?.(trx, [row.invoice_id])
        }
        const action = row.status === 'active' ? 'credit_note.created' : 'credit_note.requested'
        await audit(trx, actor, action, row, { policy: decision.why })
        return { row, created: true }
      })
      if (outcome.created && outcome.row.status === 'active') await notify([outcome.row.invoice_id])
      return { creditNote: creditNoteView(outcome.row), created: outcome.created, changed: outcome.created }
    },

    async get(id) {
      const row = await getCreditNote(db, id)
      return row && creditNoteView(row)
    },

    async list(params = {}) {
      const limit = Math.min(Math.max(Math.trunc(params.limit ?? 100), 1), 500)
      const rows = await listCreditNotes(db, { invoiceId: params.invoiceId, afterId: params.after, limit })
      return rows.map(creditNoteView)
    },

    decide,

    async void(id, actor = defaultActor) {
      const found = await getCreditNote(db, id)
      if (!found) return undefined
      if (found.status === 'pending_approval') return decide(id, 'decline', actor)
      const { row, voided } = await db.transaction().execute(async (trx) => {
        await lockFor(trx, found.invoice_id)
        const note = (await getCreditNote(trx, id, { forUpdate: true })) as CreditNoteRow
        if (note.status !== 'active' || note.voided_at !== null) return { row: note, voided: false }
        assertMayUndo({ madeBy: note.made_by, approvedBy: note.decided_by }, actor)
        const after = (await voidCreditNote(trx, id, actor.name, context.clock.now())) as CreditNoteRow
        await recomputeCredited(trx, after.invoice_id)
        await afterWrite?.(trx, [after.invoice_id])
        await audit(trx, actor, 'credit_note.voided', after)
        return { row: after, voided: true }
      })
      if (voided) await notify([row.invoice_id])
      return creditNoteView(row)
    },
  }
}
