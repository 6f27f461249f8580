/** A notification sent after a commit, never awaited by the write that asked for it. */
export type Wake = {
  /** Sends it, or once more after the one in flight (or pending). */
  (): void
  /** Sends a pending one now and resolves when none is in flight. */
  settled(): Promise<void>
}

/**
 * One notification in flight at a time, and at least `spacingMs` between the starts of two; writes that commit
 * meanwhile get one more after it, so every commit is followed by a notification sent after it. A notification
 * that fails costs whoever waits for it only their poll or sweep interval, never an event: the rows are committed
 * first.
 */
export function createWake(send: () => Promise<unknown>, spacingMs = 0): Wake {
  let sending: Promise<void> | undefined
  let pending: NodeJS.Timeout | undefined
  let again = false
  let lastAt = Number.NEGATIVE_INFINITY
  const fire = (): void => {
    pending = undefined
    lastAt = Date.now()
    sending = send()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        sending = undefined
        if (again) {
          again = false
          wake()
        }
      })
  }
  const wake = (): void => {
    // A pending one starts after this commit, so it covers it.
    if (pending) return
    if (sending) {
      again = true
      return
    }
    const wait = lastAt + spacingMs - Date.now()
    if (wait > 0) pending = setTimeout(fire, wait)
    else fire()
  }
  return Object.assign(wake, {
    async settled() {
      while (sending || pending) {
        if (pending) {
          clearTimeout(pending)
          fire()
        }
        await sending
      }
    },
  })
}
