// Command line of the local Vault Service: `serve` runs it, `admin <command>` manages its data directory.
// For scripts, an admin command prints exactly one JSON object on stdout, also when it fails ({"error": "..."},
// exit 1). For people, --help prints the usage (exit 0), and a mistyped command line or a service that cannot
// start is explained in plain text on stderr (exit 2 and 1).
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { KeyKind, SssPreset } from '../shared/api'
import { attachDashValues } from '../shared/command-line'
import { AdminError } from './accounts'
import { adminOperations } from './admin'
import {
  BACKUP_KEY_ENV,
  BackupError,
  type BackupKey,
  backupDataDir,
  createBackupKeyFile,
  parseBackupKey,
  readBackupKeyFile,
  restoreDataDir,
} from './backup'
import { DataDirInUseError } from './data-dir-lock'
import {
  configServiceOptions,
  configStorage,
  findServeConfig,
  type ServiceConfig,
  ServiceConfigError,
  transportNote,
} from './service-config'
import { openServiceContext, type StorageChoice } from './service-context'
import type { InitFlags } from './service-init'

const USAGE = `Usage:
  npm run service -- serve --data-dir <dir> [--port 0] [--host 127.0.0.1] [--smtp smtp://host:port [--smtp-insecure-plaintext]] [--from addr]
                [--public-url URL] [--credits-url URL] [--allowed-hosts name,name] [--trust-proxy addr,cidr] [--no-rate-limits]
                [--postgres-url postgres://user:password@host/db] [--blobs-dir <folder all instances share>]
                [--recovery-page <vault-recovery.html to serve at /recover; default: the built one>]
  npm run service -- serve --config <file> [same flags, which win over the file]
  npm run service -- admin <command> --data-dir <dir> [--config <file> | --postgres-url URL --blobs-dir <folder>] ...
    create-account --email E            create-key --account A --kind human|agent
    revoke-key --key K                  create-vault --account A --preset standard|enhanced
    add-credits --account A --credits N start-release --vault V
    tick [--now ISO]                    outbox [--vault V]
    accounts                            (every account: id, e-mail, credits balance, vaults, created)
    backup --to <new folder>            (while serve runs: a consistent snapshot of database and blobs,
                                         signed with the backup key: the config's, or --backup-key-file)
    restore --from <backup folder>      (into an empty --data-dir, with no service running on it; checks the
            [--backup-key-file F]        signature with the key from --backup-key-file, ${BACKUP_KEY_ENV} or
            [--skip-tamper-check]        --config; --skip-tamper-check restores an unsigned backup unchecked)
    create-backup-key --backup-key-file <new file>   (a backup key for a service set up without init)
  npm run service -- init [--yes] --public-url URL --data-dir <dir> [--config <file>]
                --smtp smtps://user:password@host:465 | --smtp-host H [--smtp-port 587] [--smtp-user U]
                [--smtp-password P (or VAULT_SMTP_PASSWORD)] [--smtp-secure] [--smtp-insecure-plaintext] --mail-from ADDR
                [--credits-url URL (the page where owners buy credits)]
                --test-to ADDR | --skip-mail-test   [--tls-cert PEM --tls-key PEM | --behind-proxy [--trust-proxy addr]]
                [--host H] [--port N] [--postgres-url URL] [--blobs-dir <shared folder>]
      sets up a self-hosted service: asks on a terminal for what is missing, sends a test e-mail, writes the
      config file (default <data-dir>/service-config.json, mode 600) and prints a systemd unit.
  npm run service -- --help

serve prints "listening on <url>" once it answers; --port 0 picks a free port. It reads the config file given
by --config, or <data-dir>/service-config.json when there is one; flags on the line win over the file.
Admin commands print one JSON object, {"error": "..."} with exit code 1 when they fail.`

/** --recovery-page: an HTML file that exists, as an absolute path (the service reads it on each visit). */
function recoveryPageFlag(path: string): string {
  const file = resolve(path)
  if (!existsSync(file)) {
    throw new StartError(
      `The recovery page ${file} does not exist. Build it with node scripts/build-recovery-page.mjs (it is written to out/recovery-page/vault-recovery.html), or leave --recovery-page out.`,
    )
  }
  return file
}

const OPTIONS = {
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  host: { type: 'string' },
  smtp: { type: 'string' },
  from: { type: 'string' },
  'public-url': { type: 'string' },
  'credits-url': { type: 'string' },
  'recovery-page': { type: 'string' },
  config: { type: 'string' },
  'smtp-host': { type: 'string' },
  'smtp-port': { type: 'string' },
  'smtp-user': { type: 'string' },
  'smtp-password': { type: 'string' },
  'smtp-secure': { type: 'boolean' },
  'smtp-insecure-plaintext': { type: 'boolean' },
  'mail-from': { type: 'string' },
  'test-to': { type: 'string' },
  'skip-mail-test': { type: 'boolean' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'behind-proxy': { type: 'boolean' },
  yes: { type: 'boolean' },
  'allowed-hosts': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'no-rate-limits': { type: 'boolean' },
  'postgres-url': { type: 'string' },
  'blobs-dir': { type: 'string' },
  email: { type: 'string' },
  account: { type: 'string' },
  kind: { type: 'string' },
  key: { type: 'string' },
  preset: { type: 'string' },
  credits: { type: 'string' },
  vault: { type: 'string' },
  now: { type: 'string' },
  to: { type: 'string' },
  'backup-key-file': { type: 'string' },
  'skip-tamper-check': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

const ADMIN_COMMANDS = [
  'create-account',
  'create-key',
  'revoke-key',
  'create-vault',
  'add-credits',
  'start-release',
  'tick',
  'outbox',
  'accounts',
  'backup',
  'restore',
  'create-backup-key',
] as const

/** The command line itself is wrong: told in plain words, with the usage, exit code 2. */
class UsageError extends Error {}

/** The service could not start: one plain sentence, exit code 1. */
class StartError extends Error {}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name]
  if (!value) throw new UsageError(`--${name} is required.`)
  return value
}

/** Why a listen failed, in words, with what to do; null for failures this does not know. */
function listenFailure(error: NodeJS.ErrnoException, host: string, port: number): string | null {
  const where = `port ${port} on ${host}`
  switch (error.code) {
    case 'EADDRINUSE':
      return `Another program, perhaps another Vault Service, is already using ${where}: stop it, or choose another --port (0 picks a free one).`
    case 'EACCES':
      return `This user may not listen on ${where} (ports below 1024 need extra rights): choose another --port.`
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this computer: pass one of its own addresses as --host, e.g. 127.0.0.1.`
  }
  return null
}

async function serve(values: Record<string, string | undefined>, noRateLimits: boolean): Promise<void> {
  let fromConfig: Partial<ReturnType<typeof configServiceOptions>> = {}
  try {
    const config = findServeConfig(values.config, values['data-dir'])
    if (config) {
      fromConfig = configServiceOptions(config)
      console.error(`[vault-service] ${transportNote(config)}`)
    }
  } catch (error) {
    if (error instanceof ServiceConfigError) throw new StartError(error.message)
    throw error
  }
  const port = values.port !== undefined ? Number(values.port) : (fromConfig.port ?? 0)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not ${JSON.stringify(values.port)}.`)
  }
  const list = (name: string) =>
    values[name]
      ?.split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
  const allowedHosts = list('allowed-hosts')
  const trustProxy = list('trust-proxy')
  if (values['trust-proxy'] !== undefined && !trustProxy?.length) {
    throw new UsageError('--trust-proxy needs the proxy addresses, e.g. --trust-proxy 127.0.0.1.')
  }
  const dataDir = values['data-dir'] ?? fromConfig.dataDir
  if (!dataDir)
    throw new UsageError('--data-dir is required. Or pass --config <file>, the file `init` wrote.')
  const host = values.host ?? fromConfig.host ?? '127.0.0.1'
  // Loaded only to serve, so admin commands start quickly.
  const { startService } = await import('./index')
  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService({
      ...fromConfig,
      dataDir,
      port,
      host,
      ...(values.smtp ? { smtp: values.smtp } : {}),
      ...(values['smtp-insecure-plaintext'] ? { smtpInsecurePlaintext: true } : {}),
      ...(values.from ? { from: values.from } : {}),
      ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
      ...(values['credits-url'] ? { creditsUrl: values['credits-url'] } : {}),
      ...(values['recovery-page'] ? { recoveryPage: recoveryPageFlag(values['recovery-page']) } : {}),
      ...(values['allowed-hosts'] !== undefined ? { allowedHosts: allowedHosts ?? [] } : {}),
      ...(trustProxy ? { trustProxy } : {}),
      ...storageFlags(values),
      // For benchmarks and load tests only: the spec's limits apply otherwise.
      ...(noRateLimits ? { rateLimits: false as const } : {}),
    })
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new StartError(error.message)
    const known = listenFailure(error as NodeJS.ErrnoException, host, port)
    if (known) throw new StartError(known)
    throw new StartError(`The Vault Service did not start: ${(error as Error).message ?? error}`)
  }
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

type AdminCommand = (typeof ADMIN_COMMANDS)[number]

/** --postgres-url and --blobs-dir, which win over the config file's storage. */
function storageFlags(values: Record<string, string | undefined>): StorageChoice {
  const url = values['postgres-url']
  if (url !== undefined && !(URL.canParse(url) && /^postgres(ql)?:$/.test(new URL(url).protocol))) {
    throw new UsageError(
      `--postgres-url must be a postgres:// address, e.g. postgres://vault:password@localhost/vault, not ${JSON.stringify(url)}.`,
    )
  }
  return {
    ...(url ? { postgresUrl: url } : {}),
    ...(values['blobs-dir'] ? { blobs: { kind: 'folder', path: resolve(values['blobs-dir']) } } : {}),
  }
}

/** The config file an admin command runs with (--config, else the data folder's), or null. */
function adminConfig(values: Record<string, string | undefined>, dataDir: string): ServiceConfig | null {
  try {
    return findServeConfig(values.config, dataDir)
  } catch (error) {
    if (error instanceof ServiceConfigError) throw new AdminError(error.message)
    throw error
  }
}

/** Where an admin command finds the state: the flags, else the config file serve uses, else the data folder. */
function adminStorage(
  values: Record<string, string | undefined>,
  config: ServiceConfig | null,
): StorageChoice {
  return { ...(config ? configStorage(config) : {}), ...storageFlags(values) }
}

/** The backup key: --backup-key-file, else VAULT_BACKUP_KEY, else the config's backupKeyFile; null if none. */
function backupKey(
  values: Record<string, string | undefined>,
  config: ServiceConfig | null,
): BackupKey | null {
  if (values['backup-key-file']) return readBackupKeyFile(values['backup-key-file'])
  const typed = process.env[BACKUP_KEY_ENV]
  if (typed) return { key: parseBackupKey(typed, BACKUP_KEY_ENV) }
  if (config?.backupKeyFile) return readBackupKeyFile(config.backupKeyFile)
  return null
}

async function admin(
  command: AdminCommand,
  values: Record<string, string | undefined>,
  skipTamperCheck: boolean,
): Promise<unknown> {
  // Checked before the data directory is opened (and perhaps created) for a command that cannot run.
  const need = (name: string) => required(values, name)
  const dataDir = need('data-dir')
  if (command === 'create-backup-key') return createBackupKeyFile(need('backup-key-file'))
  const config = adminConfig(values, dataDir)
  const storage = adminStorage(values, config)
  if ((command === 'backup' || command === 'restore') && (storage.postgresUrl || storage.blobs)) {
    throw new AdminError(
      `${command} copies a data folder's own SQLite database and blobs; this service keeps its state in ` +
        `${storage.postgresUrl ? 'PostgreSQL' : ''}${storage.postgresUrl && storage.blobs ? ' and ' : ''}${storage.blobs ? `a shared ${storage.blobs.kind} blob store` : ''}: ` +
        'back PostgreSQL up with pg_dump (restore with pg_restore) and the shared blob folder with your file backup (Arweave keeps its own copies)',
    )
  }
  // Backup and restore work on the files themselves, beside a running service or before one exists.
  if (command === 'backup') {
    const to = need('to')
    const key = backupKey(values, config)
    if (!key) {
      throw new AdminError(
        'admin backup signs every backup with the backup key, and none is set: init makes one and names it in the config ' +
          '(backupKeyFile); for a service set up without init, make one with `admin create-backup-key --backup-key-file <file>` ' +
          'outside the data folder and the backup folder, then pass --backup-key-file <file>.',
      )
    }
    return backupDataDir(dataDir, to, key)
  }
  if (command === 'restore') {
    const from = need('from')
    const key = backupKey(values, config)
    return restoreDataDir(from, dataDir, {
      ...(key ? { key: key.key } : {}),
      skipTamperCheck,
    })
  }
  const run: Record<
    Exclude<AdminCommand, 'backup' | 'restore' | 'create-backup-key'>,
    () => (ops: ReturnType<typeof adminOperations>) => unknown
  > = {
    'create-account': () => {
      const email = need('email')
      return (ops) => ops.createAccount({ email })
    },
    'create-key': () => {
      const account = need('account')
      const kind = need('kind') as KeyKind
      return (ops) => ops.createKey({ account, kind })
    },
    'revoke-key': () => {
      const key = need('key')
      return (ops) => ops.revokeKey({ key })
    },
    'create-vault': () => {
      const account = need('account')
      const preset = (values.preset ?? 'standard') as SssPreset
      return (ops) => ops.createVault({ account, preset })
    },
    'add-credits': () => {
      const account = need('account')
      const credits = Number(need('credits'))
      return (ops) => ops.addCredits({ account, credits })
    },
    'start-release': () => {
      const vault = need('vault')
      return (ops) => ops.startRelease({ vault })
    },
    tick: () => {
      if (values.now && Number.isNaN(Date.parse(values.now))) {
        throw new UsageError(
          `--now must be an ISO 8601 time such as 2030-01-31T12:00:00Z, not ${values.now}.`,
        )
      }
      const now = values.now ? new Date(values.now) : undefined
      return (ops) => ops.tick(now ? { now } : {})
    },
    outbox: () => {
      const vault = values.vault
      return (ops) => ops.outbox(vault ? { vault } : {})
    },
    accounts: () => (ops) => ops.accounts(),
  }
  const operation = run[command]()
  const { ctx, db } = await openServiceContext(dataDir, undefined, storage)
  try {
    return await operation(adminOperations(ctx))
  } finally {
    await db.close()
  }
}

async function init(values: InitFlags): Promise<void> {
  // Loaded only for init, so admin commands start quickly.
  const { runInit, InitUsageError } = await import('./service-init')
  try {
    process.exitCode = await runInit(values, {
      input: process.stdin,
      output: process.stdout,
      interactive: process.stdin.isTTY === true,
      nodePath: process.execPath,
      scriptPath: resolve(process.argv[1]!),
      ...(process.env.VAULT_SMTP_PASSWORD ? { envPassword: process.env.VAULT_SMTP_PASSWORD } : {}),
    })
  } catch (error) {
    if (error instanceof InitUsageError) throw new UsageError(error.message)
    throw error
  }
}

/** What parseArgs refused, said plainly (its own messages suggest `--` tricks nobody needs here). */
function parseFailure(error: NodeJS.ErrnoException): string {
  const option = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1]
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}.`
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    // "argument missing" and "argument is ambiguous" (the next word is another option) both mean no value.
    return /does not take an argument/.test(error.message)
      ? `${option} takes no value.`
      : `${option} needs a value.`
  }
  return `${error.message}.`
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: attachDashValues(argv, OPTIONS), options: OPTIONS, allowPositionals: true })
  } catch (error) {
    throw new UsageError(parseFailure(error as NodeJS.ErrnoException))
  }
}

async function main(argv: string[]): Promise<void> {
  // Help wins over everything else on the line, even an option parseArgs would refuse.
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const parsed = parse(argv)
  const [mode, command, ...extra] = parsed.positionals
  const values = parsed.values as Record<string, string | undefined>
  if (mode === 'serve') {
    if (command !== undefined)
      throw new UsageError(`serve takes no command, but got ${JSON.stringify(command)}.`)
    return serve(values, parsed.values['no-rate-limits'] === true)
  }
  if (mode === 'init') {
    if (command !== undefined)
      throw new UsageError(`init takes no command, but got ${JSON.stringify(command)}.`)
    return init(parsed.values)
  }
  if (mode === 'admin') {
    if (command === undefined) throw new UsageError('admin needs a command, e.g. admin create-account.')
    if (!(ADMIN_COMMANDS as readonly string[]).includes(command)) {
      throw new UsageError(`unknown admin command ${JSON.stringify(command)}.`)
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}.`)
    let result: unknown
    try {
      result = await admin(command as AdminCommand, values, parsed.values['skip-tamper-check'] === true)
    } catch (error) {
      if (error instanceof UsageError) throw error
      const message =
        error instanceof AdminError || error instanceof BackupError
          ? error.message
          : `${(error as Error).message ?? error}`
      process.stdout.write(`${JSON.stringify({ error: message })}\n`)
      process.exitCode = 1
      return
    }
    process.stdout.write(`${JSON.stringify(result)}\n`)
    return
  }
  throw new UsageError(
    mode === undefined
      ? 'say what to do: serve, or admin <command>. (init sets up a self-hosted service.)'
      : `unknown mode ${JSON.stringify(mode)}; use serve or admin. (init sets up a self-hosted service.)`,
  )
}

// A reader that stopped early (`--help | head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`service: ${error.message}\n\n${USAGE}\n`)
    process.exitCode = 2
    return
  }
  // StartError already says what happened and what to do; anything else is reported as it came, without a trace.
  // exit() rather than exitCode: nothing of a service that failed to start may keep the process alive.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
