/**
 * Telephony authentication: Twilio's `X-Twilio-Signature` on the answer webhook, and per-call
 * stream tokens checked at the stream's `start`.
 */
export {
  TWILIO_SIGNATURE_HEADER,
  computeTwilioSignature,
  verifyTwilioSignature,
  type TwilioParams,
  type TwilioSignatureInput,
  type VerifyTwilioSignatureInput,
} from './twilioSignature.js';
export { TWILIO_FORM_CONTENT_TYPE, twilioRequestUrl, verifyTwilioRequest, type TwilioRequestOptions } from './twilioRequest.js';
export {
  STREAM_TOKEN_PARAMETER,
  STREAM_TOKEN_VERSION,
  MAX_CALL_ID_BYTES,
  MAX_STREAM_TOKEN_LENGTH,
  MAX_TTL_MS,
  MIN_SECRET_BYTES,
  createStreamToken,
  verifyStreamToken,
  verifyStreamTokenParameter,
  streamTokenToHex,
  streamTokenFromHex,
  type CreateStreamTokenOptions,
  type VerifyStreamTokenOptions,
  type StreamTokenClaims,
  type StreamTokenSecret,
} from './streamToken.js';
export { TelephonyAuthError } from '../../errors.js';
