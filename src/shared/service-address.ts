// The one rule for which Vault Service addresses are used, with an owner's key or an heir's code alike:
// http(s) only, https for anything but this computer, no user:password part. Pure (no Node), so the
// app, the recovery tool and the heir's recovery page check an address the same way.
import { type AddressProblem, HEIR_SOURCE_TEXT, type HeirLanguage } from './heir-source-text'

/** An IPv4 address as the URL parser writes a host: four dotted decimals. */
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/

/** This computer only: 127.0.0.0/8, ::1, localhost and *.localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '')
  if (IPV4.test(host)) return host.startsWith('127.')
  if (host.includes(':')) return host === '::1' || host === '0:0:0:0:0:0:0:1'
  return host === 'localhost' || host.endsWith('.localhost')
}

export type ServiceAddressCheck =
  | { ok: true; url: string }
  | { ok: false; problem: AddressProblem; message: string }

/**
 * An address typed without a scheme ("127.0.0.1:8799", "vault.example.com") gets the one it can use: http://
 * for this computer, where plain http is allowed, https:// for anything else. "localhost:8799" would otherwise
 * parse as a URL of scheme "localhost:", hence the test for "://" rather than for a parse failure.
 */
function withScheme(input: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return input
  const host = URL.parse(`http://${input}`)?.hostname
  return `${host !== undefined && isLoopbackHost(host) ? 'http' : 'https'}://${input}`
}

/**
 * The rule for every service address the app uses: http(s) only, https for anything but this computer
 * (an API key or an heir's code must never cross a network in clear), no user:password part. On success,
 * the address without a trailing slash, query or fragment. `language` picks the message's words.
 */
export function checkServiceAddress(input: string, language: HeirLanguage = 'en'): ServiceAddressCheck {
  const refuse = (problem: AddressProblem): ServiceAddressCheck => ({
    ok: false,
    problem,
    message: HEIR_SOURCE_TEXT[language].address(problem, input),
  })
  // "htp:/127.0.0.1:8787" or "https:/vault.example.com": a scheme mistyped, not a host named "htp".
  if (/^[a-z][a-z0-9+.-]*:\/(?!\/)/i.test(input.trim())) return refuse('not-an-address')
  const url = URL.parse(withScheme(input.trim()))
  if (!url) return refuse('not-an-address')
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse('not-http')
  if (url.username || url.password) return refuse('credentials')
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return refuse('plain-http-remote')
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` }
}
