export { BankrecEnv } from './env-schema.js'
export { loadConfig, ConfigError } from './load-config.js'
