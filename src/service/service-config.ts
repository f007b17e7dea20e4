// The self-hosted service's config file: written by `init`, read by `serve --config <file>` (or from the data
// folder). It holds the SMTP password, so it is written private to the service's user (0600) and replaced
// atomically, never left half-written.
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createSecureContext } from 'node:tls'
import { z } from 'zod'
import { isLoopbackHostName } from './allowed-hosts'
import type { StorageChoice } from './service-context'

/** Where `serve --data-dir <dir>` looks for a config file when no --config is given. */
export const CONFIG_FILE_NAME = 'service-config.json'

export function defaultConfigPath(dataDir: string): string {
  return join(resolve(dataDir), CONFIG_FILE_NAME)
}

const httpUrl = z.string().refine((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), {
  message: 'must be an http:// or https:// address, e.g. https://vault.example.org',
})

const smtpSettings = z.strictObject({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  /** true: TLS from the first byte (usually port 465); false: plain, upgraded by STARTTLS when offered. */
  secure: z.boolean(),
  user: z.string().min(1).optional(),
  password: z.string().optional(),
  /**
   * true: send without required TLS to a server beyond this computer, so the password and every link may
   * travel in clear. Unset: TLS is required (STARTTLS a server must accept, or secure).
   */
  insecurePlaintext: z.boolean().optional(),
})

const postgresUrl = z
  .string()
  .refine((text) => URL.canParse(text) && /^postgres(ql)?:$/.test(new URL(text).protocol), {
    message: 'must be a postgres:// address, e.g. postgres://vault:password@db.example.org/vault',
  })

/** Where the state lives when it is not this data folder's SQLite file and blobs/ folder. */
const storageSettings = z.strictObject({
  /** Several instances, each with its own dataDir, share the vaults through this database. */
  postgresUrl: postgresUrl.optional(),
  /**
   * The key e-mails waiting in the outbox are sealed with (0600; by default <dataDir>/mail.key). Every
   * instance sharing postgresUrl needs the same key: give each a copy. Never beside the database's backups.
   */
  mailKeyFile: z.string().min(1).optional(),
  blobs: z
    .discriminatedUnion('kind', [
      /** A folder every instance mounts at the same path (one file system: NFS, a shared disk). */
      z.strictObject({ kind: z.literal('folder'), path: z.string().min(1) }),
      /** The Arweave network: a gateway (https://arweave.net) and the operator's wallet (JWK) that pays. */
      z.strictObject({ kind: z.literal('arweave'), gateway: httpUrl, walletFile: z.string().min(1) }),
    ])
    .optional(),
})

export const serviceConfigSchema = z.strictObject({
  version: z.literal(1),
  /** Absolute path of the data folder (database, blobs). */
  dataDir: z.string().min(1),
  listen: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(0).max(65535),
  }),
  /** The address guardians and heirs open; links in e-mails start with it. */
  publicUrl: httpUrl,
  /** The operator's page where owners buy credits; the app's "Buy credits" opens it. */
  creditsUrl: httpUrl.optional(),
  /** Host names the service answers to (see allowed-hosts.ts). */
  allowedHosts: z.array(z.string().min(1)).optional(),
  smtp: smtpSettings.optional(),
  /** Sender of outgoing mail, e.g. "Vault Service <vault@example.org>". */
  mailFrom: z.string().min(1).optional(),
  /** Serve https from this certificate chain and private key (PEM files). */
  tls: z.strictObject({ certFile: z.string().min(1), keyFile: z.string().min(1) }).optional(),
  /** Reverse proxies (addresses or CIDR ranges) whose X-Forwarded-* headers are believed. */
  trustProxy: z.array(z.string().min(1)).optional(),
  storage: storageSettings.optional(),
  /** The key admin backup signs backups with and admin restore checks them with; kept apart from the backups. */
  backupKeyFile: z.string().min(1).optional(),
})

export type ServiceConfig = z.infer<typeof serviceConfigSchema>
export type SmtpSettings = z.infer<typeof smtpSettings>

/** The config file cannot be read, parsed or written: the message says which file, what is wrong and what to do. */
export class ServiceConfigError extends Error {}

/** The SMTP settings as the URL nodemailer reads; user and password percent-encoded so any character survives. */
export function smtpUrl(smtp: SmtpSettings): string {
  const auth = smtp.user
    ? `${encodeURIComponent(smtp.user)}${smtp.password !== undefined ? `:${encodeURIComponent(smtp.password)}` : ''}@`
    : ''
  const host = smtp.host.includes(':') ? `[${smtp.host}]` : smtp.host
  return `${smtp.secure ? 'smtps' : 'smtp'}://${auth}${host}:${smtp.port}`
}

/** An smtp:// or smtps:// URL (as --smtp takes) as settings; null when it is not one. */
export function parseSmtpUrl(text: string): SmtpSettings | null {
  if (!URL.canParse(text)) return null
  const url = new URL(text)
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return null
  if (!url.hostname) return null
  const secure = url.protocol === 'smtps:'
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part)
    } catch {
      return part
    }
  }
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username ? { user: decode(url.username) } : {}),
    ...(url.password ? { password: decode(url.password) } : {}),
  }
}

export function readServiceConfig(file: string): ServiceConfig {
  const path = resolve(file)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') {
      throw new ServiceConfigError(
        `There is no config file at ${path}: create one with \`npm run service -- init\`, or pass the right --config.`,
      )
    }
    if (code === 'EACCES') {
      throw new ServiceConfigError(
        `This user may not read the config file ${path}: run the service as the user that owns it (its mode is 0600).`,
      )
    }
    throw new ServiceConfigError(`The config file ${path} could not be read (${code ?? error}).`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ServiceConfigError(
      `The config file ${path} is not valid JSON (${(error as Error).message}): fix it, or write it again with \`npm run service -- init\`.`,
    )
  }
  const parsed = serviceConfigSchema.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.length ? issue.path.join('.') : '(the whole file)'}: ${issue.message}`)
      .join('; ')
    throw new ServiceConfigError(
      `The config file ${path} has wrong settings (${problems}): fix them, or write it again with \`npm run service -- init\`.`,
    )
  }
  // The file holds the SMTP and database passwords: say so when others can read it, rather than refuse to start.
  const mode = statSync(path).mode & 0o777
  if (mode & 0o077) {
    console.error(
      `[vault-service] the config file ${path} can be read by other users (mode ${mode.toString(8)}) and holds passwords: chmod 600 it`,
    )
  }
  return parsed.data
}

/** Writes the config file readable by this user only (0600), replacing any old one in one rename. */
export function writeServiceConfig(file: string, config: ServiceConfig): string {
  const path = resolve(file)
  const text = `${JSON.stringify(serviceConfigSchema.parse(config), null, 2)}\n`
  const temp = `${path}.${process.pid}.tmp`
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    const fd = openSync(temp, 'wx', 0o600)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    // The umask may have taken bits away, never added: chmod says exactly 0600.
    chmodSync(temp, 0o600)
    renameSync(temp, path)
  } catch (error) {
    if (existsSync(temp)) rmSync(temp, { force: true })
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new ServiceConfigError(
        `The config file could not be written to ${path} (${code}): a file stands where a folder of that path should be; choose another --config <file>.`,
      )
    }
    throw new ServiceConfigError(
      `The config file could not be written to ${path} (${code ?? (error as Error).message}): ` +
        'choose a folder this user may write with --config <file>, or fix the folder’s owner and permissions.',
    )
  }
  return path
}

/** The config `serve` runs with: --config, else the data folder's config file when it has one, else none. */
export function findServeConfig(
  configFile: string | undefined,
  dataDir: string | undefined,
): ServiceConfig | null {
  if (configFile !== undefined) return readServiceConfig(configFile)
  if (dataDir !== undefined && existsSync(defaultConfigPath(dataDir)))
    return readServiceConfig(defaultConfigPath(dataDir))
  return null
}

/** What startService takes from a config file (command-line flags given beside it win). */
export function configServiceOptions(config: ServiceConfig) {
  return {
    dataDir: config.dataDir,
    host: config.listen.host,
    port: config.listen.port,
    publicUrl: config.publicUrl,
    ...(config.creditsUrl ? { creditsUrl: config.creditsUrl } : {}),
    ...(config.smtp ? { smtp: smtpUrl(config.smtp) } : {}),
    ...(config.smtp?.insecurePlaintext ? { smtpInsecurePlaintext: true } : {}),
    ...(config.mailFrom ? { from: config.mailFrom } : {}),
    ...(config.allowedHosts ? { allowedHosts: config.allowedHosts } : {}),
    ...(config.trustProxy?.length ? { trustProxy: config.trustProxy } : {}),
    ...(config.tls ? { tls: loadTls(config.tls) } : {}),
    ...configStorage(config),
  }
}

/** The config's storage choice, as startService and openServiceContext take it. */
export function configStorage(config: ServiceConfig): StorageChoice {
  return {
    ...(config.storage?.postgresUrl ? { postgresUrl: config.storage.postgresUrl } : {}),
    ...(config.storage?.blobs ? { blobs: config.storage.blobs } : {}),
    ...(config.storage?.mailKeyFile ? { mailKeyFile: config.storage.mailKeyFile } : {}),
  }
}

/** One line for the log at start: how clients reach this service, so nobody has to guess about TLS. */
export function transportNote(config: ServiceConfig): string {
  const publicUrl = new URL(config.publicUrl)
  // A config written before init refused this (or by hand) still starts, but never quietly.
  const clearToAnotherComputer =
    publicUrl.protocol === 'http:' && !isLoopbackHostName(publicUrl.hostname)
      ? `. WARNING: the public URL ${config.publicUrl} is plain http to another computer, so API keys and the access codes in e-mailed links cross the network in clear; run init again with an https URL and --tls-cert/--tls-key or --behind-proxy`
      : ''
  if (config.tls) return `serving https with the certificate ${config.tls.certFile}${clearToAnotherComputer}`
  if (config.trustProxy?.length) {
    return (
      'serving plain http and expecting a reverse proxy to handle https; X-Forwarded-For/-Host/-Proto are ' +
      `believed only from ${config.trustProxy.join(', ')}${clearToAnotherComputer}`
    )
  }
  return `serving plain http without a reverse proxy; X-Forwarded-* headers are ignored${
    publicUrl.protocol === 'https:'
      ? `, yet the public URL ${config.publicUrl} is https: add tls or trustProxy to the config`
      : ''
  }${clearToAnotherComputer}`
}

/** The certificate chain and key as https needs them; checked to be readable PEM that belong together. */
export function loadTls(tls: { certFile: string; keyFile: string }): { cert: Buffer; key: Buffer } {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new ServiceConfigError(
        code === 'EACCES'
          ? `This user may not read the TLS ${what} ${file}: give the service's user read access to it (e.g. a group that may read it), or copy it somewhere that user can read.`
          : `The TLS ${what} ${file} could not be read (${code ?? (error as Error).message}): check the path (tls.${what === 'certificate' ? 'certFile' : 'keyFile'} in the config file, --tls-${what === 'certificate' ? 'cert' : 'key'} for init).`,
      )
    }
  }
  const cert = read(tls.certFile, 'certificate')
  const key = read(tls.keyFile, 'private key')
  try {
    createSecureContext({ cert, key })
  } catch (error) {
    throw new ServiceConfigError(
      `The TLS certificate ${tls.certFile} and private key ${tls.keyFile} cannot be used together (${(error as Error).message}): ` +
        'give the PEM certificate chain (e.g. fullchain.pem) and the private key issued with it (privkey.pem).',
    )
  }
  return { cert, key }
}
