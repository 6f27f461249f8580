export { createSidecarAuth, isRefusal, UNAUTHORIZED } from './sidecar-auth.js'
export type { AuthRefusal, Identity, SidecarAuth, SidecarAuthDeps } from './sidecar-auth.js'
export { builtinSessionValue, createAuthenticator } from './authenticator.js'
export type { Authenticator, AuthenticatorDeps } from './authenticator.js'
export {
  actorOf,
  forbiddenMessage,
  identityOf,
  refusalError,
  requireActor,
  requireRole,
} from './require-actor.js'
export { closeSession, openSession, SESSION_COOKIE } from './session-cookie.js'
