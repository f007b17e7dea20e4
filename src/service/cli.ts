// Command line of the local Vault Service: `serve` runs it, `admin <command>` manages its data directory.
// Admin commands print exactly one JSON object; errors print {"error": "..."} and exit non-zero.
import { parseArgs } from 'node:util'
import type { KeyKind, SssPreset } from '../shared/api'
import { AdminError } from './accounts'
import { adminOperations } from './admin'
import { openServiceContext } from './service-context'

const USAGE = `Usage:
  service serve --port <p> --data-dir <dir> [--host 127.0.0.1] [--smtp smtp://host:port] [--from addr]
                [--public-url URL] [--allowed-hosts name,name] [--trust-proxy addr,cidr] [--no-rate-limits]
  service admin <command> --data-dir <dir> ...
    create-account --email E            create-key --account A --kind human|agent
    revoke-key --key K                  create-vault --account A --preset standard|enhanced
    add-credits --account A --credits N start-release --vault V
    tick [--now ISO]                    outbox [--vault V]`

const OPTIONS = {
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  host: { type: 'string' },
  smtp: { type: 'string' },
  from: { type: 'string' },
  'public-url': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'no-rate-limits': { type: 'boolean' },
  email: { type: 'string' },
  account: { type: 'string' },
  kind: { type: 'string' },
  key: { type: 'string' },
  preset: { type: 'string' },
  credits: { type: 'string' },
  vault: { type: 'string' },
  now: { type: 'string' },
} as const

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name]
  if (!value) throw new AdminError(`--${name} is required\n${USAGE}`)
  return value
}

async function serve(values: Record<string, string | undefined>, noRateLimits: boolean): Promise<void> {
  const port = Number(values.port ?? '0')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new AdminError('--port must be 0..65535')
  const list = (name: string) =>
    values[name]
      ?.split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
  const allowedHosts = list('allowed-hosts')
  const trustProxy = list('trust-proxy')
  if (values['trust-proxy'] !== undefined && !trustProxy?.length) {
    throw new AdminError('--trust-proxy needs the proxy addresses, e.g. --trust-proxy 127.0.0.1')
  }
  // Loaded only to serve, so admin commands start quickly.
  const { startService } = await import('./index')
  const service = await startService({
    dataDir: required(values, 'data-dir'),
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.smtp ? { smtp: values.smtp } : {}),
    ...(values.from ? { from: values.from } : {}),
    ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
    ...(values['allowed-hosts'] !== undefined ? { allowedHosts: allowedHosts ?? [] } : {}),
    ...(trustProxy ? { trustProxy } : {}),
    // For benchmarks and load tests only: the spec's limits apply otherwise.
    ...(noRateLimits ? { rateLimits: false as const } : {}),
  })
  const stop = (signal: string) => {
    console.error(`[vault-service] ${signal}: shutting down`)
    service.close().then(
      () => process.exit(0),
      (error) => {
        console.error('[vault-service] shutdown failed:', error)
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
  // Only now: whoever waits for this line may signal at once.
  console.log(`listening on ${service.url}`)
}

function admin(command: string | undefined, values: Record<string, string | undefined>): unknown {
  const { ctx, db } = openServiceContext(required(values, 'data-dir'))
  try {
    const ops = adminOperations(ctx)
    switch (command) {
      case 'create-account':
        return ops.createAccount({ email: required(values, 'email') })
      case 'create-key':
        return ops.createKey({
          account: required(values, 'account'),
          kind: required(values, 'kind') as KeyKind,
        })
      case 'revoke-key':
        return ops.revokeKey({ key: required(values, 'key') })
      case 'create-vault':
        return ops.createVault({
          account: required(values, 'account'),
          preset: (values.preset ?? 'standard') as SssPreset,
        })
      case 'add-credits':
        return ops.addCredits({
          account: required(values, 'account'),
          credits: Number(required(values, 'credits')),
        })
      case 'start-release':
        return ops.startRelease({ vault: required(values, 'vault') })
      case 'tick': {
        if (values.now && Number.isNaN(Date.parse(values.now)))
          throw new AdminError('--now must be an ISO 8601 time')
        return ops.tick(values.now ? { now: new Date(values.now) } : {})
      }
      case 'outbox':
        return ops.outbox(values.vault ? { vault: values.vault } : {})
      default:
        throw new AdminError(`unknown admin command ${JSON.stringify(command ?? '')}\n${USAGE}`)
    }
  } finally {
    db.close()
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true })
  } catch (error) {
    console.log(JSON.stringify({ error: `${(error as Error).message}\n${USAGE}` }))
    process.exit(2)
  }
  const [mode, command] = parsed.positionals
  const values = parsed.values as Record<string, string | undefined>
  try {
    if (mode === 'serve') return await serve(values, parsed.values['no-rate-limits'] === true)
    if (mode === 'admin') {
      console.log(JSON.stringify(admin(command, values)))
      return
    }
    throw new AdminError(`unknown mode ${JSON.stringify(mode ?? '')}\n${USAGE}`)
  } catch (error) {
    const message = error instanceof AdminError ? error.message : `${(error as Error).message ?? error}`
    console.log(JSON.stringify({ error: message }))
    process.exit(1)
  }
}

void main()
