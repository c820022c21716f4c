import { DESCRIPTORS_EXHAUSTED_REASON } from './descriptors.ts';

/**
 * Turns a network error into a reason a person understands (CONTRACT.md "Monitors":
 * `Connection refused`, `Timeout after 10 s`, …). Looks through `cause` chains, since undici and
 * fetch wrap the socket error.
 * @param host the target host, named in DNS failures
 * @param timeoutSeconds the check's timeout, named in timeouts
 */
export function describeNetworkError(err: unknown, host: string, timeoutSeconds: number): string {
  const codes: string[] = [];
  const messages: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (typeof name === 'string' && (name === 'TimeoutError' || name === 'AbortError')) codes.push('TIMEOUT');
    if (typeof message === 'string') messages.push(message);
  }
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  // Pharos's own fault, not the target's: the wheel retries these checks (src/engine/connections.ts).
  if (has('EMFILE', 'ENFILE')) return `${DESCRIPTORS_EXHAUSTED_REASON} (${codes.find((c) => c === 'EMFILE' || c === 'ENFILE')})`;
  // undici's ProxyAgent aborts a refused CONNECT with this message (an AbortError: not a timeout), and a 407 with its own.
  const proxy = messages.map((m) => /Proxy response \((\d+)\)/.exec(m)).find((m) => m !== null);
  if (proxy) return `Proxy refused the tunnel: HTTP ${proxy[1]}`;
  if (messages.some((m) => m.startsWith('Proxy Authentication Required'))) return 'Proxy authentication failed (HTTP 407)';
  if (has('TIMEOUT', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT')) return `Timeout after ${timeoutSeconds} s`;
  if (has('ECONNREFUSED')) return 'Connection refused';
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL')) return `DNS lookup failed for ${host}`;
  if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED')) return 'Connection reset';
  if (has('EHOSTUNREACH', 'ENETUNREACH')) return 'Host unreachable';
  const tls = codes.find((c) => /CERT|SSL|TLS|SIGNATURE|ISSUER|SELF_SIGNED/.test(c));
  if (tls) return `TLS error: ${tls}`;
  if (has('UND_ERR_REDIRECT_MAX') || messages.some((m) => /max redirect/i.test(m))) return 'Too many redirects';
  if (messages.some((m) => /redirect loop/i.test(m))) return 'Redirect loop';
  return `Request failed: ${codes[0] ?? messages[0] ?? 'unknown error'}`;
}
