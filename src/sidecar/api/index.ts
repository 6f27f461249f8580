import { Router } from 'express'
import type { SidecarContext } from '../context.js'
import { accountRoutes } from './accounts.js'
import { alertRoutes } from './alerts.js'
import { allocationRoutes } from './allocations.js'
import { remittanceRoutes } from './remittance.js'
import { auditRoutes } from './audit.js'
import { balanceProofRoutes } from './balance-proof.js'
import { connectionRoutes } from './connections.js'
import { customerRoutes } from './customers.js'
import { dispositionRoutes } from './dispositions.js'
import { exceptionRoutes } from './exceptions.js'
import { creditNoteRoutes } from './credit-notes.js'
import { invoiceRoutes } from './invoices.js'
import { journalRoutes } from './journal.js'
import { matchingRoutes } from './matching.js'
import { matchingTrustRoutes } from './matching-trust.js'
import { overviewRoutes } from './overview.js'
import { paymentRoutes } from './payments.js'
import { reportRoutes } from './report.js'
import { transactionRoutes } from './transactions.js'
import { transferRoutes } from './transfers.js'
import { userRoutes } from './users.js'
import { approvalRoutes } from './approvals.js'

/** Every /api route; each file holds one resource. */
export function apiRoutes(context: SidecarContext): Router {
  const router = Router()
  router.use(connectionRoutes(context))
  router.use(overviewRoutes(context))
  router.use(transactionRoutes(context))
  router.use(accountRoutes(context))
  router.use(balanceProofRoutes(context))
  router.use(transferRoutes(context))
  router.use(exceptionRoutes(context))
  router.use(dispositionRoutes(context))
  router.use(allocationRoutes(context))
  router.use(remittanceRoutes(context))
  router.use(reportRoutes(context))
  router.use(journalRoutes(context))
  router.use(invoiceRoutes(context))
  router.use(creditNoteRoutes(context))
  router.use(alertRoutes(context))
  router.use(userRoutes(context))
  router.use(auditRoutes(context))
  router.use(customerRoutes(context))
  router.use(matchingRoutes(context))
  router.use(matchingTrustRoutes(context))
  router.use(approvalRoutes(context))
  router.use(paymentRoutes(context))
  return router
}
