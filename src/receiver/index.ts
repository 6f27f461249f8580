// `bankrec/receiver` is a public subpath: its users verify (and test with) signatures, so it keeps them.
export {
  signPayload,
  verifySignature,
  createSignatureVerifier,
  SignatureVerificationError,
  SIGNATURE_HEADER,
} from '../signing/index.js'
export type {
  SignPayloadParams,
  VerifySignatureParams,
  VerifiedSignature,
  SignatureVerifier,
  SignatureFailureReason,
  Payload,
} from '../signing/index.js'
export { parseEnvelope } from '../webhook-envelope/index.js'
export type { ParsedEnvelope, EnvelopeProblem } from '../webhook-envelope/index.js'
export { createBatchingEnqueue } from './batching-enqueue.js'
export type { Enqueue, BatchingEnqueue, BatchingEnqueueOptions } from './batching-enqueue.js'
export { createReceiverMetrics } from './metrics.js'
export type { ReceiverMetrics, DeliveryOutcome } from './metrics.js'
export { createWebhookReceiver, DEFAULT_BODY_LIMIT_BYTES } from './webhook-receiver.js'
export type { WebhookReceiver, WebhookReceiverOptions, Delivery, ReceiverLogger } from './webhook-receiver.js'
export { createWebhookMiddleware } from './webhook-middleware.js'
export type { WebhookMiddleware, WebhookMiddlewareOptions } from './webhook-middleware.js'
export { statusOf } from './delivery-answer.js'
export type { DeliveryAnswer, ReceiverErrorCode } from './delivery-answer.js'
export { createReceiverServer } from './server.js'
export type { ReceiverServer, ReceiverServerOptions } from './server.js'
