export {
  signPayload,
  verifySignature,
  createSignatureVerifier,
  SignatureVerificationError,
  SIGNATURE_HEADER,
} from './signature.js'
export type {
  SignPayloadParams,
  VerifySignatureParams,
  VerifiedSignature,
  SignatureVerifier,
  SignatureFailureReason,
  Payload,
} from './signature.js'
