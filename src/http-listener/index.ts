export { createLimitedServer, LISTENER_LIMITS } from './listener-limits.js'
export type { ListenerLimits } from './listener-limits.js'
export { explainListenError } from './listen-error.js'
