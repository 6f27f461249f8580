/**
 * A listen() failure a person can act on: a taken or forbidden port names the port and what sets it (`PORT`,
 * `--port`). Any other error is returned as it was.
 */
export function explainListenError(
  error: unknown,
  where: { port: number; host: string; setting: 'PORT' | '--port' },
): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const address = `${where.host}:${where.port}`
  if (code === 'EADDRINUSE') {
    return new Error(
      `port ${where.port} is in use (EADDRINUSE: another bankrec, or another program, listens on ${address}); ` +
        `set ${where.setting} to a free port (0 picks one), or stop what holds it.`,
      { cause: error },
    )
  }
  if (code === 'EACCES') {
    return new Error(
      `port ${where.port} may not be opened by this user (EACCES on ${address}); set ${where.setting} to a port above 1023.`,
      { cause: error },
    )
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    const hostSetting = where.setting === 'PORT' ? 'HOST' : '--host'
    return new Error(`${where.host} is not an address of this machine; check ${hostSetting}.`, {
      cause: error,
    })
  }
  return error
}
