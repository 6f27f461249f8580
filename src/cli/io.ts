/** What a command needs from its process, so tests can run commands without spawning one. */
export type CommandIo = {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  env: NodeJS.ProcessEnv
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM in the real CLI). */
  untilStopped(): Promise<void>
}

export function processIo(): CommandIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    untilStopped: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve())
        process.once('SIGTERM', () => resolve())
      }),
  }
}
