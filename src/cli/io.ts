/** What a command needs from its process, so tests can run commands without spawning one. */
export type CommandIo = {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  env: NodeJS.ProcessEnv
  /** Where interactive answers and --password-stdin come from; a TTY gets prompts with masked input. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean }
  /** Whether stderr is a terminal (logs are pretty-printed there, JSON otherwise). */
  isTerminal?: boolean
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM in the real CLI). */
  untilStopped(): Promise<void>
}

export function processIo(): CommandIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    isTerminal: process.stderr.isTTY === true,
    untilStopped: () =>
      new Promise((resolve) => {
        // Listeners stay: a second Ctrl-C while draining must not kill the process before it has stopped what
        // it started (the embedded PostgreSQL above all).
        process.on('SIGINT', () => resolve())
        process.on('SIGTERM', () => resolve())
      }),
  }
}
