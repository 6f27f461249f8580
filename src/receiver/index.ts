export { signPayload, verifySignature, SignatureVerificationError, SIGNATURE_HEADER } from './signature.js'
export type {
  SignPayloadParams,
  VerifySignatureParams,
  VerifiedSignature,
  SignatureFailureReason,
  Payload,
} from './signature.js'
