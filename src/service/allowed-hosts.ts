// The Host allow-list (`--allowed-hosts`). A web page can point a name it controls at the service's
// address (DNS rebinding) and so reach a service listening on loopback or a private network from the
// visitor's browser; the browser then sends that name as Host. Answering only the names the service is
// really reached by stops such pages.
import { isIP } from 'node:net'

/**
 * The names a service listening on loopback is reached by. The app's embedded service answers only these:
 * a page that rebinds its own name to 127.0.0.1 reaches the port, but its requests carry its own name.
 */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '::1']

/** Whether a host name (or IP literal, bracketed or not) stays on this computer: localhost, 127/8, ::1. */
export function isLoopbackHostName(host: string): boolean {
  const bare = normalizeHost(host)
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return bare === '::1'
}

/** A host name as compared: lower case, without the brackets of an IPv6 literal. */
function normalizeHost(name: string): string {
  const lower = name.trim().toLowerCase()
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower
}

/** Parses the configured names; throws on an entry that cannot match a Host header. */
export function parseAllowedHosts(names: readonly string[]): Set<string> {
  const hosts = new Set<string>()
  for (const raw of names) {
    const name = normalizeHost(raw)
    if (name === '') continue
    // A scheme, path or port (host:8080) would never equal a Host header's name part: say so instead of
    // refusing every request. An IPv6 literal has several colons (or brackets) and is a name.
    const hostAndPort = raw.trim().startsWith('[')
      ? !name.endsWith(']') && name.includes(']:')
      : name.split(':').length === 2
    if (/[/\s]/.test(name) || hostAndPort) {
      throw new Error(
        `--allowed-hosts entry "${raw}" is not a host name; list names without scheme or port, e.g. vault.example.org,127.0.0.1`,
      )
    }
    hosts.add(name)
  }
  if (hosts.size === 0) {
    throw new Error(
      '--allowed-hosts is empty; list the names the service is reached by, e.g. vault.example.org',
    )
  }
  return hosts
}

/** Whether a request's host name (without port, as Fastify's request.hostname gives it) is allowed. */
export function isHostAllowed(allowed: ReadonlySet<string>, hostname: string): boolean {
  return allowed.has(normalizeHost(hostname))
}
