/**
 * Connect (and TLS) time per request, from Node's fetch (undici) diagnostics channels.
 *
 * The client keeps connections alive, so most requests reuse one and have no connect time. undici
 * publishes `beforeConnect` / `connected` per new socket and `sendHeaders` per request with the
 * socket it went out on; a request is named by the {@link LATENCY_ID_HEADER} it carries, and a
 * new socket's connect time is given to the first request sent on it. For https the connector
 * does TCP and TLS in one step, so the time covers both.
 */
import * as diagnostics from 'node:diagnostics_channel';

/** Names each measured request to the connect tracker (and the capture recorder). */
export const LATENCY_ID_HEADER = 'x-voicewire-latency-id';

interface ConnectInfo {
  ms: number;
  tls: boolean;
  claimed: boolean;
}

export interface ConnectTime {
  /** null: the request went out on a connection opened earlier. */
  connectMs: number | null;
  tls: boolean;
}

interface UndiciConnectMessage {
  connectParams: { protocol?: string; host?: string };
  socket?: object;
}
interface UndiciSendHeadersMessage {
  request: { headers?: string | string[] };
  socket: object;
}

function originOf(p: UndiciConnectMessage['connectParams']): string {
  return `${p.protocol ?? ''}//${p.host ?? ''}`;
}

function headerValue(headers: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (headers[i]!.toLowerCase() === name) return headers[i + 1];
    return undefined;
  }
  if (typeof headers === 'string') {
    const m = new RegExp(`(?:^|\\r\\n)${name}:\\s*([^\\r\\n]*)`, 'i').exec(headers);
    return m?.[1]?.trim();
  }
  return undefined;
}

export class ConnectTracker {
  /**
   * Connects under way per origin, oldest first: undici passes a fresh `connectParams` object to
   * each hook, so a connect is matched to its start by origin and order (connects to one origin
   * finish about in the order they began; a mismatch swaps two nearly equal times).
   */
  private readonly starts = new Map<string, number[]>();
  private readonly sockets = new WeakMap<object, ConnectInfo>();
  /** Requests we wait for, by id; filled at `sendHeaders`. */
  private readonly expected = new Map<string, ConnectTime | null>();
  private readonly now: () => number;

  private readonly onBeforeConnect = (m: unknown): void => {
    const key = originOf((m as UndiciConnectMessage).connectParams);
    const queue = this.starts.get(key);
    if (queue === undefined) this.starts.set(key, [this.now()]);
    else queue.push(this.now());
  };
  private readonly takeStart = (m: unknown): number | undefined => {
    const key = originOf((m as UndiciConnectMessage).connectParams);
    const queue = this.starts.get(key);
    const start = queue?.shift();
    if (queue !== undefined && queue.length === 0) this.starts.delete(key);
    return start;
  };
  private readonly onConnectError = (m: unknown): void => {
    this.takeStart(m);
  };
  private readonly onConnected = (m: unknown): void => {
    const { connectParams, socket } = m as UndiciConnectMessage;
    const start = this.takeStart(m);
    if (socket === undefined || start === undefined) return;
    this.sockets.set(socket, { ms: this.now() - start, tls: connectParams.protocol === 'https:', claimed: false });
  };
  private readonly onSendHeaders = (m: unknown): void => {
    const { request, socket } = m as UndiciSendHeadersMessage;
    const id = headerValue(request.headers, LATENCY_ID_HEADER);
    if (id === undefined || !this.expected.has(id)) return;
    const info = this.sockets.get(socket);
    if (info === undefined || info.claimed) {
      this.expected.set(id, { connectMs: null, tls: info?.tls ?? false });
      return;
    }
    info.claimed = true;
    this.expected.set(id, { connectMs: info.ms, tls: info.tls });
  };

  constructor(now: () => number = () => performance.now()) {
    this.now = now;
    diagnostics.subscribe('undici:client:beforeConnect', this.onBeforeConnect);
    diagnostics.subscribe('undici:client:connected', this.onConnected);
    diagnostics.subscribe('undici:client:connectError', this.onConnectError);
    diagnostics.subscribe('undici:client:sendHeaders', this.onSendHeaders);
  }

  /** Call before sending request `id`. */
  expect(id: string): void {
    this.expected.set(id, null);
  }

  /** The request's connect time (and forgets it); null when its headers never went out. */
  take(id: string): ConnectTime | null {
    const t = this.expected.get(id) ?? null;
    this.expected.delete(id);
    return t;
  }

  close(): void {
    diagnostics.unsubscribe('undici:client:beforeConnect', this.onBeforeConnect);
    diagnostics.unsubscribe('undici:client:connected', this.onConnected);
    diagnostics.unsubscribe('undici:client:connectError', this.onConnectError);
    diagnostics.unsubscribe('undici:client:sendHeaders', this.onSendHeaders);
  }
}
