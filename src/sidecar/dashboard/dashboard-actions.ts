import { Router, type Request, type RequestHandler, type Response } from 'express'
import { z } from 'zod'
import { DecimalString, Uuid } from '../../api-client/index.js'
import { AutoApplyModeSchema } from '../../matching/index.js'
import {
  DispositionRequestSchema,
  InvoiceWriteOffRequestSchema,
  ClosingRequestError,
} from '../../closing/index.js'
import { activeAllocationsOfTransactions } from '../../store/index.js'
import { DomainError } from '../../errors/index.js'
import { roleAllows, type Actor, type Role } from '../../users/index.js'
import { forbiddenMessage, isRefusal } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { money } from './format.js'
import { redirectWithFlash, sendPage } from './page-response.js'
import { importAdviceForm, RemittanceForm } from './remittance-action.js'
import { renderRemittanceOutcome } from './remittance-page.js'
import { ApprovalAction, decideApproval } from './approvals-page.js'

const BACK = /^\/(?:dashboard(?:[/?].*)?)?$/

/** Where an action may send the browser back to: a dashboard page, never another site. */
export function safeBack(value: unknown): string {
  return typeof value === 'string' && BACK.test(value) && !/[\\\s]/.test(value) ? value : '/dashboard'
}

/**
 * Refuses a form posted from another origin. The SameSite=Strict cookie already keeps other sites' forms out;
 * this holds for browsers that send Origin or Sec-Fetch-Site but ignore SameSite. `Origin: null` (a sandboxed
 * frame, a data: page, a cross-site redirect) is an opaque origin, never this one. Behind a trusted proxy
 * (TRUST_PROXY) the host compared is the one the browser used (X-Forwarded-Host).
 */
export const sameOrigin: RequestHandler = (req, res, next) => {
  const origin = req.headers.origin
  const site = req.headers['sec-fetch-site']
  let crossOrigin = site !== undefined && site !== 'same-origin' && site !== 'none'
  if (origin !== undefined) {
    try {
      crossOrigin ||= new URL(origin).host !== req.host
    } catch {
      crossOrigin = true
    }
  }
  if (crossOrigin) {
    res.status(403).type('text').send('Cross-origin form posts are refused.')
    return
  }
  next()
}

const ManualMatch = z.object({
  transactionId: z.string().trim().pipe(Uuid),
  invoiceId: z.string().trim().min(1, 'Name the invoice to match.').max(255),
  amount: z
    .string()
    .trim()
    .transform((value) => value || undefined)
    .pipe(DecimalString.refine((value) => Number(value) > 0, 'must be more than 0').optional())
    .optional(),
})

/**
 * The dashboard's form actions (POST under /dashboard), each the same call the /api route makes, answered with a
 * redirect back to the page and a one-time notice.
 */
export function dashboardActions(context: SidecarContext): Router {
  const router = Router()
  const { db } = context.store

  /** A request for `role` and above, answered by `run` as the signed-in actor. */
  const asActor =
    (
      role: Role,
      run: (req: Request, res: Response, actor: Actor, back: string) => Promise<void>,
    ): RequestHandler =>
    (req, res) => {
      const back = safeBack((req.body as { back?: unknown } | undefined)?.back)
      context.auth
        .identify(req, { cookie: true })
        .then((identity) => {
          if (!identity || isRefusal(identity)) {
            res
              .status(identity?.status ?? 401)
              .type('html')
              .send('<!doctype html><p>Signed out. <a href="/">Sign in</a> again.</p>')
            return
          }
          const { actor } = identity
          if (!roleAllows(actor.role, role)) {
            return redirectWithFlash(res, back, { kind: 'error', text: forbiddenMessage(actor, role) })
          }
          return run(req, res, actor, back)
        })
        .catch((error: unknown) => failed(res, back, error))
    }

  /** An action for `role` and above, done as the signed-in actor, its outcome a notice on the page it came from. */
  const act = (role: Role, run: (req: Request, actor: Actor) => Promise<string>): RequestHandler =>
    asActor(role, async (req, res, actor, back) =>
      redirectWithFlash(res, back, { kind: 'ok', text: await run(req, actor) }),
    )

  const failed = (res: Response, back: string, error: unknown) => {
    if (error instanceof DomainError || error instanceof z.ZodError) {
      const text =
        error instanceof z.ZodError
          ? error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`.trim()).join('; ')
          : error.message
      return redirectWithFlash(res, back, { kind: 'error', text })
    }
    context.logger.error({ err: error }, 'dashboard action failed')
    redirectWithFlash(res, back, { kind: 'error', text: 'The action failed; see the bankrec log.' })
  }

  for (const action of ['accept', 'reject'] as const) {
    router.post(
      `/exceptions/:key/${action}`,
      act('clerk', async (req, actor) => {
        const key = String(req.params.key)
        if (action === 'accept') {
          await context.closing.acceptSuggestion(key, actor)
          return 'Suggestion accepted: the payment is allocated.'
        }
        await context.closing.rejectSuggestion(key, actor)
        return 'Suggestion rejected; it will not be suggested again.'
      }),
    )
  }
  router.post(
    '/allocations',
    act('clerk', async (req, actor) => {
      const body = ManualMatch.parse(req.body ?? {})
      await context.closing.manualMatch(body, actor)
      const allocation = (await activeAllocationsOfTransactions(db, [body.transactionId])).find(
        (row) => row.invoice_id === body.invoiceId && row.made_by === 'person',
      )
      if (!allocation) {
        throw new ClosingRequestError(
          'conflict',
          'nothing_allocated',
          'The match was recorded but allocates nothing: the payment or the invoice has nothing left.',
        )
      }
      return `Matched ${money(allocation.amount)} to invoice ${body.invoiceId}.`
    }),
  )
  router.post(
    '/exceptions/:key/dispose',
    act('clerk', async (req, actor) => {
      const body = DispositionRequestSchema.parse(req.body ?? {})
      const row = await context.closing.dispose(String(req.params.key), body, actor)
      return row.status === 'pending_approval'
        ? `The ${money(row.amount, row.currency)} ${row.kind.replace(/_/g, ' ')} waits for a second person's approval.`
        : `Disposed of ${money(row.amount)} (${row.kind.replace(/_/g, ' ')} to ${row.account}).`
    }),
  )
  router.post(
    '/invoices/:id/write-off',
    act('clerk', async (req, actor) => {
      const form = (req.body ?? {}) as Record<string, unknown>
      // An empty amount field is the whole open rest.
      const body = InvoiceWriteOffRequestSchema.parse({ ...form, amount: form.amount || undefined })
      const row = await context.closing.writeOffInvoice(String(req.params.id), body, actor)
      return row.status === 'pending_approval'
        ? `The ${money(row.amount, row.currency)} write-off waits for a second person's approval.`
        : `Wrote off ${money(row.amount, row.currency)} of the invoice's rest to ${row.account}.`
    }),
  )
  for (const action of ['approve', 'decline', 'undo'] as const) {
    router.post(
      `/dispositions/:id/${action}`,
      act('clerk', async (req, actor) => {
        const id = String(req.params.id)
        if (action === 'undo') {
          await context.closing.undoDisposition(id, actor)
          return 'Disposition undone: its amount is open again (on the payment or the invoice).'
        }
        await context.closing.decideDisposition(id, action, actor)
        return action === 'approve' ? 'Disposition approved and in force.' : 'Disposition declined.'
      }),
    )
  }
  // The Approvals page: one form per waiting operation, whatever its kind (issue 26).
  router.post(
    '/approvals/:kind/:id/:decision',
    act('clerk', async (req, actor) => {
      const { kind, id, decision } = ApprovalAction.parse(req.params)
      await decideApproval(context, kind, id, decision, actor)
      return `${kind.replace(/_/g, ' ')} ${id} ${decision === 'approve' ? 'approved and in force' : 'declined'}.`
    }),
  )
  router.post(
    '/transactions/:id/give-back',
    act('clerk', async (req, actor) => {
      const id = Uuid.parse(String(req.params.id))
      await context.closing.giveBack(id, actor)
      return 'Given back: the engine matches the payment again.'
    }),
  )
  // The outcome is a page of its own: the proposed split of an advice that does not add up is too long for a notice.
  router.post(
    '/transactions/:id/remittance',
    asActor('clerk', async (req, res, actor, back) => {
      const id = Uuid.parse(String(req.params.id))
      const outcome = await importAdviceForm(context, id, RemittanceForm.parse(req.body ?? {}), actor)
      sendPage(
        req,
        res,
        context,
        {
          title: 'Remittance advice',
          current: 'exceptions',
          actor,
          body: renderRemittanceOutcome(id, outcome, back),
        },
        outcome.ok ? 200 : outcome.status,
      )
    }),
  )
  router.post(
    '/allocations/:id/unmatch',
    act('clerk', async (req, actor) => {
      const id = String(req.params.id)
      if (!/^\d{1,18}$/.test(id))
        throw new ClosingRequestError('invalid', 'validation_error', 'No such allocation.')
      await context.closing.unmatch(id, actor)
      return 'Allocation removed; the payment is matched again without it.'
    }),
  )
  router.post(
    '/connections/:id/sync',
    act('clerk', async (req) => {
      const id = String(req.params.id)
      if (!(await context.requestKnownSync(id, 'dashboard'))) {
        throw new ClosingRequestError(
          'not_found',
          'not_found',
          `No connection ${id} at the bank; nothing queued.`,
        )
      }
      return 'Sync queued.'
    }),
  )
  router.post(
    '/settings/matching',
    act('admin', async (req, actor) => {
      const { autoApply } = z.object({ autoApply: AutoApplyModeSchema }).parse(req.body ?? {})
      await context.matching.setAutoApplyMode(autoApply, actor)
      return `Automatic matching is ${autoApply} from the next matching run.`
    }),
  )
  return router
}
