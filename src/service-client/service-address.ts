// Service addresses: whether people outside this computer and its network could reach one:
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

// The address rule itself is pure and shared with the heir's recovery page.
export { checkServiceAddress, isLoopbackHost, type ServiceAddressCheck } from '../shared/service-address'
