import { z } from 'zod'
import { TrustReportRequest } from '../../matching/index.js'
import * as approvals from '../api/approvals.js'
import * as trust from '../api/matching-trust.js'
import { operation } from './operation.js'
import * as out from './response-schemas.js'
import * as controls from './response-schemas-controls.js'

const ok = (description: string, body?: z.ZodType) => ({ description, body })
const CreditNoteParams = z.object({ id: z.string().min(1).max(255) })
const decider = (decision: 'approve' | 'decline') =>
  decision === 'approve'
    ? 'An approver who is not its maker approves it (403 `role_required` or `same_person` otherwise).'
    : 'Its maker withdraws it, or an approver declines it (403 `role_required` otherwise).'

/** The approval policy (a second person for what waits) and shadow mode: /api path items. */
export const controlsPaths = {
  '/approvals': {
    get: operation({
      tag: 'closing',
      summary: 'Everything waiting for a second person, oldest first, with maker, amount, account and reason',
      query: approvals.Query,
      responses: { 200: ok('What waits', z.looseObject({ data: z.array(controls.PendingApproval) })) },
    }),
  },
  ...Object.fromEntries(
    (['approve', 'decline'] as const).flatMap((decision) => [
      [
        `/credit-notes/{id}/${decision}`,
        {
          post: operation({
            tag: 'invoices',
            summary: `${decision === 'approve' ? 'Approve' : 'Decline'} a credit note waiting for approval`,
            description: decider(decision),
            role: decision === 'approve' ? 'approver' : 'clerk',
            conflict: true,
            path: CreditNoteParams,
            responses: { 200: ok('The credit note', out.CreditNote) },
          }),
        },
      ],
      [
        `/remittance-imports/{id}/${decision}`,
        {
          post: operation({
            tag: 'closing',
            summary: `${decision === 'approve' ? 'Approve' : 'Decline'} a remittance import waiting for approval`,
            description: decider(decision),
            role: decision === 'approve' ? 'approver' : 'clerk',
            conflict: true,
            path: approvals.IdParams,
            body: approvals.DecisionBody,
            responses: { 200: ok('The remittance import', controls.RemittanceImport) },
          }),
        },
      ],
    ]),
  ),
  '/settings/matching': {
    get: operation({
      tag: 'matching',
      summary: 'The automatic-matching mode in force (off, shadow, on), where it comes from and who set it',
      responses: { 200: ok('The mode', controls.AutoApplyState) },
    }),
    put: operation({
      tag: 'matching',
      summary: "Change the automatic-matching mode from every process's next matching run, in the audit log",
      role: 'admin',
      body: trust.ModeChange,
      responses: { 200: ok('The mode now', controls.AutoApplyState) },
    }),
  },
  '/matching/trust-report': {
    get: operation({
      tag: 'reports',
      summary:
        'What the engine would have settled (shadow) or settled (on) in those days, and how people decided',
      description: 'docs/matching.md describes shadow mode and the trust report.',
      query: TrustReportRequest,
      responses: { 200: ok('The trust report', controls.TrustReport) },
    }),
  },
}
