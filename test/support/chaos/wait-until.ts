import { setTimeout as delay } from 'node:timers/promises'

/**
 * Polls `check` until it returns a value other than undefined/false, or throws once `timeoutMs` has passed,
 * naming what it waited for and the last state `describe` reports. Polling a condition with a deadline, never a
 * fixed sleep.
 */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs: number; intervalMs?: number; describe?: () => Promise<string> | string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined && value !== false) return value
      lastError = undefined
    } catch (error) {
      lastError = error
    }
    if (Date.now() >= deadline) {
      const state = options.describe ? await Promise.resolve(options.describe()).catch(String) : ''
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : ''
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for ${what}${cause}${state ? `\n${state}` : ''}`,
      )
    }
    await delay(options.intervalMs ?? 100)
  }
}

/** Like waitUntil, but reaching the deadline is not an error: answers whether the condition came true. */
export async function waitAtMost(
  timeoutMs: number,
  check: () => Promise<boolean> | boolean,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() >= deadline) return false
    await delay(intervalMs)
  }
}
