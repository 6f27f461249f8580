import { BankrecEnv } from './env-schema.js'

/** Raised when the environment is wrong; lists every problem, never a secret's value. */
export class ConfigError extends Error {
  readonly code = 'invalid_config'
  constructor(readonly problems: string[]) {
    super(`bankrec cannot start; fix the configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Parses the environment once. An empty variable counts as unset, as in most process managers. */
export function loadConfig(env: Record<string, string | undefined>): BankrecEnv {
  const present = Object.fromEntries(
    Object.entries(env).filter(
      ([key, value]) => key in BankrecEnv.shape && value !== undefined && value !== '',
    ),
  )
  const result = BankrecEnv.safeParse(present)
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`))
  }
  return result.data
}
