/**
 * The node:http side of {@link verifyTwilioSignature}: rebuild the URL Twilio requested, parse the
 * form body, verify. Thin: the rules live in `twilioSignature.ts`.
 *
 * Behind a TLS tunnel or a reverse proxy the URL this server sees (`http://127.0.0.1:8080/twiml`)
 * is not the one Twilio signed (`https://voice.example.com/twiml`): pass `publicUrl`. Forwarded
 * headers (`X-Forwarded-Host`, `-Proto`) are not trusted, since any client can send them.
 *
 * @see https://www.twilio.com/docs/usage/webhooks/webhooks-security
 */
import type { IncomingMessage } from 'node:http';
import { InvalidOptionError, TelephonyAuthError } from '../../errors.js';
import { TWILIO_SIGNATURE_HEADER, verifyTwilioSignature } from './twilioSignature.js';

/** Twilio posts its webhooks as `application/x-www-form-urlencoded`. */
export const TWILIO_FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export interface TwilioRequestOptions {
  /** The auth token, or the primary and secondary during a rotation. */
  authToken: string | readonly string[];
  /**
   * The scheme and host (and any path prefix a proxy strips) that Twilio requested, e.g.
   * `https://voice.example.com`; the request's own path and query are appended to it.
   * @defaultValue `http(s)://` + the `Host` header (https when the socket is TLS)
   */
  publicUrl?: string;
}

/** The URL Twilio requested, as far as this server can tell (see {@link TwilioRequestOptions.publicUrl}). */
export function twilioRequestUrl(req: Pick<IncomingMessage, 'url' | 'headers' | 'socket'>, publicUrl?: string): string {
  const path = req.url ?? '/';
  if (publicUrl !== undefined) {
    if (!/^https?:\/\/[^/?#]+/.test(publicUrl))
      throw new InvalidOptionError('publicUrl', 'publicUrl must start with http:// or https:// and a host');
    return `${publicUrl.replace(/\/+$/, '')}${path}`;
  }
  const tls = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  return `${tls ? 'https' : 'http'}://${req.headers.host ?? ''}${path}`;
}

/**
 * Verifies a Twilio webhook request whose body was read whole; returns its form parameters, or
 * throws a {@link TelephonyAuthError} (the caller answers 403).
 *
 * @example
 * const params = verifyTwilioRequest(req, rawBody, { authToken, publicUrl: 'https://voice.example.com' });
 */
export function verifyTwilioRequest(
  req: Pick<IncomingMessage, 'url' | 'headers' | 'socket' | 'method'>,
  body: string | Uint8Array,
  options: TwilioRequestOptions,
): URLSearchParams {
  const url = twilioRequestUrl(req, options.publicUrl);
  let params = new URLSearchParams();
  if (req.method === 'POST') {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type !== TWILIO_FORM_CONTENT_TYPE) {
      throw new TelephonyAuthError('TWILIO_SIGNATURE_MISMATCH', `Twilio webhook body must be ${TWILIO_FORM_CONTENT_TYPE}`, {
        field: 'content-type',
      });
    }
    params = new URLSearchParams(
      typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
    );
  }
  verifyTwilioSignature({ authToken: options.authToken, url, params, signature: req.headers[TWILIO_SIGNATURE_HEADER] });
  return params;
}
