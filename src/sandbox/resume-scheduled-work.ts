import { resumeConnectionWork } from './bank/index.js'
import type { SandboxContext } from './context.js'
import { resumeTransferSteps } from './transfer-lifecycle.js'

/**
 * Puts the bank's timeline back after its state was loaded from a state file: connection steps (provisioning,
 * activation, running and scheduled syncs, errored recovery) and transfer steps, each due when it was due before.
 * Webhook deliveries need nothing here: pending ones are part of the state (state.deliveries) and go out at the
 * next catch-up.
 */
export function resumeScheduledWork(ctx: SandboxContext): void {
  resumeConnectionWork(ctx)
  resumeTransferSteps(ctx)
}
