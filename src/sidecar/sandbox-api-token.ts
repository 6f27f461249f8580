import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import path from 'node:path'

export const SANDBOX_API_TOKEN_FILE = 'kit-api-token'

const TOKEN = /^kit_[A-Za-z0-9_-]{32}$/

/**
 * The API token of sandbox mode when KIT_API_TOKEN is unset. Kept beside the simulated bank's state (owner-only),
 * so a restart keeps the dashboard's session and the user's scripts working; without a state file it is made
 * afresh each run, like the bank. A file that does not hold a token is replaced.
 */
export async function sandboxApiToken(
  sandboxStateFile: string | undefined,
): Promise<{ token: string; file?: string }> {
  if (!sandboxStateFile) return { token: newToken() }
  const file = path.join(path.dirname(sandboxStateFile), SANDBOX_API_TOKEN_FILE)
  const kept = await fs.readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    },
  )
  if (kept && TOKEN.test(kept)) return { token: kept, file }
  const token = newToken()
  await fs.mkdir(path.dirname(file), { recursive: true })
  await fs.writeFile(file, `${token}\n`, { mode: 0o600 })
  await fs.chmod(file, 0o600)
  return { token, file }
}

function newToken(): string {
  return `kit_${randomBytes(24).toString('base64url')}`
}
