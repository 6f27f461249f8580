import type { SandboxContext } from '../context.js'

/**
 * Schedules a bank step `seconds` after a logical time and hands the step its own due time. When the clock jumps
 * far ahead, a chain of steps (activation, its initial sync, scheduled syncs) still runs at the times it would
 * have run at, one after the other, instead of collapsing onto the moment of the jump.
 */
export function scheduleStep(
  ctx: SandboxContext,
  from: Date,
  seconds: number,
  label: string,
  run: (at: Date) => void,
): void {
  const due = new Date(from.getTime() + seconds * 1000)
  ctx.scheduler.at(due, label, () => run(due))
}
