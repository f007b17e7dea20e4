// Service addresses: the one rule for which addresses the app will talk to (owners' connections and
// heirs' recovery alike), and whether people outside this computer and its network could reach one:
// loopback, private and link-local addresses and local-only host names cannot be reached by heirs.
import { isIP } from 'node:net'

const LOCAL_SUFFIXES = ['.localhost', '.local', '.lan', '.home', '.internal', '.home.arpa', '.localdomain']

function privateIpv4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number)
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  )
}

function privateIpv6(address: string): boolean {
  const a = address.toLowerCase()
  if (a === '::1' || a === '::') return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a)
  if (mapped?.[1]) return privateIpv4(mapped[1])
  // The URL parser writes a mapped IPv4 address as two hex groups: ::ffff:a00:1 is 10.0.0.1.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a)
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16)
    const low = Number.parseInt(hex[2], 16)
    return privateIpv4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`)
  }
  return /^f[cd]/.test(a) || /^fe[89ab]/.test(a)
}

/** True when the URL's host is a public name or address (it may still be down: that is not checked). */
export function isPubliclyReachable(serviceUrl: string): boolean {
  let host: string
  try {
    host = new URL(serviceUrl).hostname.toLowerCase()
  } catch {
    return false
  }
  const bare = host.replace(/^\[|\]$/g, '')
  const family = isIP(bare)
  if (family === 4) return !privateIpv4(bare)
  if (family === 6) return !privateIpv6(bare)
  if (host === 'localhost' || !host.includes('.')) return false
  return !LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))
}

/** This computer only: 127.0.0.0/8, ::1, localhost and *.localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '')
  if (isIP(host) === 4) return host.startsWith('127.')
  if (isIP(host) === 6) return host === '::1'
  return host === 'localhost' || host.endsWith('.localhost')
}

export type ServiceAddressCheck =
  | { ok: true; url: string }
  | {
      ok: false
      problem: 'not-an-address' | 'not-http' | 'plain-http-remote' | 'credentials'
      message: string
    }

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
 * the address without a trailing slash, query or fragment.
 */
export function checkServiceAddress(input: string): ServiceAddressCheck {
  const url = URL.parse(withScheme(input.trim()))
  if (!url) {
    return {
      ok: false,
      problem: 'not-an-address',
      message: `"${input}" is not a service address. Enter it like https://vault.example.com (or http://127.0.0.1:8787 for a service on this computer).`,
    }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, problem: 'not-http', message: 'The service address must start with https://.' }
  }
  if (url.username || url.password) {
    return {
      ok: false,
      problem: 'credentials',
      message: 'The service address must not contain a user name or password. Remove the part before the @.',
    }
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      problem: 'plain-http-remote',
      message:
        'Use https:// for a remote Vault Service; plain http:// is only allowed for a service on this computer, because the key or access code would cross the network unprotected.',
    }
  }
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` }
}
