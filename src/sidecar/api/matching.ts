import { Router } from 'express'
import { z } from 'zod'
import type { Decimal } from 'decimal.js'
import { dryRunMatching } from '../../closing/index.js'
import { type MatchConfig } from '../../matcher/index.js'
import { WRITE_OFF_REASONS, writeOffAccountFor } from '../../matcher/index.js'
import { handle, parseRequest } from '../api-error.js'
import { requireRole } from '../auth/index.js'
import { matchConfigOf } from '../match-config.js'
import { controlsOf } from '../controls-config.js'
import type { SidecarContext } from '../context.js'

/** A tolerance: a plain decimal string, not negative, as the matcher keeps it (up to 18 decimals). */
const Tolerance = z
  .string({ error: 'must be a decimal string such as "2.50"' })
  .regex(/^\d{1,30}(\.\d{1,18})?$/, 'must be a plain decimal such as 2.50, not negative, up to 18 decimals')

/** A configuration to try: any of the options a deployment sets, decimals as strings. */
export const ProposedMatchConfig = z.strictObject({
  autoApplyThreshold: z.number().int().min(1).max(100).optional(),
  autoConfirmThreshold: z.number().int().min(0).max(100).nullable().optional(),
  feeToleranceAbsolute: Tolerance.nullable().optional(),
  feeTolerancePercent: Tolerance.nullable().optional(),
  maxSuggestionSetSize: z.number().int().min(1).max(5).optional(),
})

export const DryRun = z.strictObject({
  config: ProposedMatchConfig.optional(),
  limit: z.number().int().min(1).max(5000).default(500),
})

const decimal = (value: Decimal | null | undefined) => (value ? value.toFixed() : null)

/** The present matching configuration as data (docs/closing.md); it holds no secrets. */
export function presentMatchConfig(config: MatchConfig) {
  return {
    autoApplyThreshold: config.autoApplyThreshold,
    autoConfirmThreshold: config.autoConfirmThreshold,
    feeTolerance: {
      amount: decimal(config.feeToleranceAbsolute),
      percent: decimal(config.feeTolerancePercent),
      combine: 'smaller',
      byCurrency: Object.fromEntries(
        Object.entries(config.feeToleranceByCurrency).map(([currency, limits]) => [
          currency,
          {
            amount:
              limits.absolute === undefined ? decimal(config.feeToleranceAbsolute) : decimal(limits.absolute),
            percent:
              limits.percent === undefined ? decimal(config.feeTolerancePercent) : decimal(limits.percent),
          },
        ]),
      ),
    },
    writeOffAccount: config.writeOffAccount,
    writeOffAccounts: Object.fromEntries(
      WRITE_OFF_REASONS.map((reason) => [reason, writeOffAccountFor(config, reason)]),
    ),
    maxSuggestionSetSize: config.maxSuggestionSetSize,
    transferLegWindowSeconds: config.transferLegWindowSeconds,
    // Dates as evidence (issue 25 rule 7): MATCH_INVOICE_DATE_GRACE_DAYS and MATCH_RETURN_HORIZON_DAYS.
    invoiceDateGraceDays: config.invoiceDateGraceDays,
    returnHorizonDays: config.returnHorizonDays,
  }
}

/**
 * GET /api/matching/config: the present configuration (tolerances, write-off accounts, thresholds, date grace and
 * return horizon, the automatic-matching mode in force, the approval threshold and window, the chart of accounts).
 * POST /api/matching/dry-run: the engine over the current unmatched payments with the present configuration or
 * a proposed one (`config`), showing what would change. Nothing is written.
 */
export function matchingRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/matching/config',
    handle(async (_req, res) => {
      const threshold = context.config.APPROVAL_THRESHOLD_AMOUNT
      const { policy, chart } = controlsOf(context.config)
      // The mode in force: the stored one, else MATCH_AUTO_APPLY (GET /api/settings/matching tells who set it).
      const mode = await context.matching.autoApplyMode()
      res.json({
        ...presentMatchConfig(matchConfigOf(context.config)),
        autoApply: mode.autoApply,
        autoApplySource: mode.source,
        // What one person may do alone (docs/security.md#segregation-of-duties).
        approvalThreshold: threshold ? { amount: threshold.all, byCurrency: threshold.byCurrency } : null,
        approvalWindowHours: policy.windowHours,
        /** LEDGER_ACCOUNTS with the write-off accounts: what people may book to, by kind. */
        ledgerAccounts: chart,
      })
    }),
  )
  router.post(
    '/matching/dry-run',
    // Nothing is written, but a run over every unmatched payment is work a viewer should not start at will.
    requireRole('clerk'),
    handle(async (req, res) => {
      const body = parseRequest(DryRun, req.body ?? {}, 'body')
      const report = await dryRunMatching(context.store.db, {
        config: matchConfigOf(context.config),
        proposed: body.config,
        limit: body.limit,
      })
      res.json(report)
    }),
  )
  return router
}
