// `npm run service -- init`: sets up a self-hosted Vault Service on an always-on machine. It takes the public
// address, SMTP settings and data folder from flags or asks for them on a terminal, proves the SMTP server
// accepts mail by sending a test message, makes the backup key, writes the config file `serve` reads, and
// prints a systemd unit.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createInterface, type Interface } from 'node:readline/promises'
import { PassThrough, type Readable, type Writable } from 'node:stream'
import nodemailer from 'nodemailer'
import { isLoopbackHostName } from './allowed-hosts'
import {
  BACKUP_KEY_ENV,
  BACKUP_KEY_FILE_NAME,
  BackupError,
  createBackupKeyFile,
  readBackupKeyFile,
} from './backup'
import { explainTlsRefusal, smtpSecurityNote, smtpSecurityOf, smtpTransportOptions } from './outbox'
import { openPostgresStore, redactedUrl } from './postgres-store'
import { MAIL_KEY_FILE_NAME, mailKeyOf } from './secrets'
import {
  defaultConfigPath,
  loadTls,
  parseSmtpUrl,
  type ServiceConfig,
  ServiceConfigError,
  type SmtpSettings,
  smtpUrl,
  writeServiceConfig,
} from './service-config'

/** Settings init reads from the command line (all optional: missing ones are asked for, or refused with --yes). */
export interface InitFlags {
  'public-url'?: string
  'data-dir'?: string
  config?: string
  host?: string
  port?: string
  smtp?: string
  'smtp-host'?: string
  'smtp-port'?: string
  'smtp-user'?: string
  'smtp-password'?: string
  'smtp-secure'?: boolean
  /** Send without required TLS to a server beyond this computer (named so nobody picks it by accident). */
  'smtp-insecure-plaintext'?: boolean
  'mail-from'?: string
  /** The operator's page where owners buy credits; without one the app tells owners to ask the operator. */
  'credits-url'?: string
  from?: string
  'test-to'?: string
  'skip-mail-test'?: boolean
  'tls-cert'?: string
  'tls-key'?: string
  'behind-proxy'?: boolean
  'trust-proxy'?: string
  /** Keep the state in this PostgreSQL database (several instances share it); checked before writing. */
  'postgres-url'?: string
  /** Keep blobs in this folder, mounted at the same path on every instance. */
  'blobs-dir'?: string
  yes?: boolean
}

export interface InitIo {
  input: Readable
  output: Writable
  /** Ask for what the flags leave out (a terminal without --yes); otherwise a missing setting is an error. */
  interactive: boolean
  /** Absolute paths for the systemd unit's ExecStart. */
  nodePath: string
  scriptPath: string
  /** The SMTP password from the environment (VAULT_SMTP_PASSWORD), so it need not appear in `ps` or shell history. */
  envPassword?: string
}

/** A flag is missing or wrong: said plainly, the command line shown again (exit 2). */
export class InitUsageError extends Error {}

/** Set-up stopped (SMTP refused, a file not writable): what happened and what to do (exit 1). */
export class InitError extends Error {}

const MAIL_TIMEOUT_MS = 15_000
const DEFAULT_PORT = 8787

/** Asks for settings on a terminal; never called when not interactive. */
class Prompter {
  private readonly rl: Interface
  /** While set, nothing readline writes reaches the screen: the typed password and its redraws stay unshown. */
  private muted = false

  constructor(input: Readable, output: Writable) {
    // readline writes prompts and, on a terminal (raw mode), its own echo of what is typed: all through this stream.
    const screen = new PassThrough()
    screen.on('data', (chunk) => {
      if (!this.muted) output.write(chunk)
    })
    this.rl = createInterface({
      input,
      output: screen,
      terminal: Boolean((input as { isTTY?: boolean }).isTTY),
    })
  }

  async ask(question: string, fallback?: string): Promise<string> {
    const answer = (await this.rl.question(`${question}${fallback ? ` [${fallback}]` : ''}: `)).trim()
    return answer === '' ? (fallback ?? '') : answer
  }

  async secret(question: string, output: Writable): Promise<string> {
    this.muted = true
    // Asked before the prompt shows, so an answer typed at once is not lost.
    const answer = this.rl.question('')
    output.write(`${question} (not shown; empty for none): `)
    try {
      return await answer
    } finally {
      this.muted = false
      output.write('\n')
    }
  }

  async confirm(question: string): Promise<boolean> {
    return /^y(es)?$/i.test(await this.ask(`${question} (y/N)`))
  }

  close() {
    this.rl.close()
  }
}

/** --port may be 0 (a free port, as for serve); an SMTP port may not. */
function portNumber(text: string, flag: string, lowest = 1): number {
  const port = Number(text)
  if (!/^\d+$/.test(text.trim()) || port < lowest || port > 65535) {
    throw new InitUsageError(
      `${flag} must be a whole number from ${lowest} to 65535, not ${JSON.stringify(text)}.`,
    )
  }
  return port
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')

/** Collects and checks every setting; asks on a terminal for what the flags leave out. */
async function gather(flags: InitFlags, io: InitIo, prompt: Prompter | null) {
  const need = async (flag: keyof InitFlags, question: string, fallback?: string): Promise<string> => {
    const given = flags[flag]
    if (typeof given === 'string' && given.trim() !== '') return given.trim()
    if (prompt) {
      const answer = await prompt.ask(question, fallback)
      if (answer !== '') return answer
      throw new InitUsageError(`${question} is needed (--${flag}).`)
    }
    if (fallback !== undefined) return fallback
    throw new InitUsageError(
      `--${flag} is required when init cannot ask (--yes, or not on a terminal): ${question.toLowerCase()}.`,
    )
  }

  const publicUrl = (
    await need('public-url', 'Public URL guardians and heirs will open, e.g. https://vault.example.org')
  ).replace(/\/+$/, '')
  if (!URL.canParse(publicUrl) || !/^https?:$/.test(new URL(publicUrl).protocol)) {
    throw new InitUsageError(
      `--public-url must be an http:// or https:// address such as https://vault.example.org, not ${JSON.stringify(publicUrl)}.`,
    )
  }
  const publicHost = new URL(publicUrl).hostname
  // Every e-mailed link carries an access code and the app sends the owner's key: never in clear over a network.
  if (new URL(publicUrl).protocol === 'http:' && !isLoopbackHostName(publicHost)) {
    const https = `https://${new URL(publicUrl).host}`
    throw new InitUsageError(
      `the public URL ${publicUrl} is plain http to another computer: every link e-mailed to guardians and heirs ` +
        "carries an access code, and the app sends the owner's API key, readable by anyone on the way. " +
        (flags['behind-proxy'] || flags['trust-proxy'] !== undefined
          ? `A reverse proxy that handles https makes the address people open ${https}: give that as --public-url.`
          : flags['tls-cert']
            ? `With --tls-cert/--tls-key this service speaks https: give --public-url ${https}.`
            : `Give --public-url ${https} with --tls-cert/--tls-key (this service speaks https) or --behind-proxy ` +
              '(a reverse proxy such as Caddy or nginx speaks https and forwards plain http here); ' +
              'for a trial on this computer only, use http://127.0.0.1:<port>.'),
    )
  }
  const dataDir = resolve(
    await need('data-dir', 'Data folder (database and files)', '/var/lib/vault-service'),
  )
  // Optional: empty means none, and the app then says "ask the operator of this service" (never a dead link).
  const creditsUrl = (
    flags['credits-url'] ??
    (prompt
      ? await prompt.ask(
          'Page where owners buy credits, e.g. https://vault.example.org/credits (empty for none: the app tells owners to ask you)',
          '',
        )
      : '')
  ).trim()
  if (creditsUrl !== '' && !(URL.canParse(creditsUrl) && /^https?:$/.test(new URL(creditsUrl).protocol))) {
    throw new InitUsageError(
      `--credits-url must be an http:// or https:// page such as https://vault.example.org/credits, not ${JSON.stringify(creditsUrl)}.`,
    )
  }

  // SMTP: one URL, or host/port/user/password.
  let smtp: SmtpSettings
  if (flags.smtp) {
    const parsed = parseSmtpUrl(flags.smtp)
    if (!parsed) {
      throw new InitUsageError(
        `--smtp must be an smtp:// or smtps:// URL such as smtps://user:password@mail.example.org:465, not ${JSON.stringify(flags.smtp)}.`,
      )
    }
    smtp = parsed
  } else {
    const host = await need('smtp-host', 'SMTP server host name, e.g. mail.example.org')
    const port = portNumber(
      await need('smtp-port', 'SMTP port (465: TLS at once; 587 or 25: STARTTLS)', '587'),
      '--smtp-port',
    )
    const user =
      flags['smtp-user'] ?? (prompt ? await prompt.ask('SMTP user name (empty for none)', '') : undefined)
    let password = flags['smtp-password'] ?? io.envPassword
    if (password === undefined && user && prompt) password = await prompt.secret('SMTP password', io.output)
    smtp = {
      host,
      port,
      secure: flags['smtp-secure'] ?? port === 465,
      ...(user ? { user } : {}),
      ...(user && password ? { password } : {}),
    }
  }
  if (flags['smtp-insecure-plaintext']) smtp = { ...smtp, insecurePlaintext: true }
  const mailFrom = await need(
    flags.from && !flags['mail-from'] ? 'from' : 'mail-from',
    'Sender address of the e-mails',
    `Vault Service <vault@${isLoopbackHostName(publicHost) ? 'localhost' : publicHost}>`,
  )
  const testTo = flags['skip-mail-test']
    ? null
    : await need('test-to', 'Send the test e-mail to (an inbox you can check)')

  // TLS here, or a reverse proxy in front.
  let tls: ServiceConfig['tls']
  let certFile = flags['tls-cert']
  let keyFile = flags['tls-key']
  const behindProxy = flags['behind-proxy'] === true || flags['trust-proxy'] !== undefined
  if (!certFile && !keyFile && !behindProxy && prompt && new URL(publicUrl).protocol === 'https:') {
    if (
      await prompt.confirm('Does a reverse proxy (nginx, Caddy, ...) in front of this service handle https')
    ) {
      flags['behind-proxy'] = true
    } else {
      certFile = await prompt.ask(
        'TLS certificate chain (PEM), e.g. /etc/letsencrypt/live/<name>/fullchain.pem',
      )
      keyFile = await prompt.ask('TLS private key (PEM), e.g. /etc/letsencrypt/live/<name>/privkey.pem')
    }
  }
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new InitUsageError('--tls-cert and --tls-key go together: give both PEM files, or neither.')
  }
  if (certFile && keyFile) {
    tls = { certFile: resolve(certFile), keyFile: resolve(keyFile) }
    try {
      loadTls(tls)
    } catch (error) {
      if (error instanceof ServiceConfigError) throw new InitError(error.message)
      throw error
    }
  }
  const proxied = flags['behind-proxy'] === true || flags['trust-proxy'] !== undefined
  const trustProxy = proxied
    ? flags['trust-proxy']
      ? list(flags['trust-proxy'])
      : ['127.0.0.1', '::1']
    : undefined
  if (trustProxy?.length === 0) {
    throw new InitUsageError('--trust-proxy needs the proxy addresses, e.g. --trust-proxy 127.0.0.1.')
  }
  if (tls && proxied) {
    throw new InitUsageError(
      'choose one: --tls-cert/--tls-key (this service speaks https itself) or --behind-proxy (a reverse proxy speaks https and forwards plain http here).',
    )
  }
  if (!tls && !proxied && new URL(publicUrl).protocol === 'https:') {
    throw new InitUsageError(
      `the public URL ${publicUrl} is https, but nothing here would speak https: give --tls-cert and --tls-key, or --behind-proxy if a reverse proxy handles https.`,
    )
  }

  // Listen: loopback behind a proxy or for a loopback public URL; otherwise every interface, on the public
  // URL's port when TLS is served here.
  const host = flags.host ?? (proxied || isLoopbackHostName(publicHost) ? '127.0.0.1' : '0.0.0.0')
  const urlPort = new URL(publicUrl).port
  const port = flags.port
    ? portNumber(flags.port, '--port', 0)
    : !proxied && urlPort
      ? Number(urlPort)
      : !proxied && tls
        ? 443
        : DEFAULT_PORT
  const postgresUrl = flags['postgres-url']
  if (
    postgresUrl !== undefined &&
    !(URL.canParse(postgresUrl) && /^postgres(ql)?:$/.test(new URL(postgresUrl).protocol))
  ) {
    throw new InitUsageError(
      `--postgres-url must be a postgres:// address, e.g. postgres://vault:password@db.example.org/vault, not ${JSON.stringify(postgresUrl)}.`,
    )
  }
  const storage = {
    ...(postgresUrl ? { postgresUrl } : {}),
    ...(flags['blobs-dir'] ? { blobs: { kind: 'folder' as const, path: resolve(flags['blobs-dir']) } } : {}),
  }
  const configFile = resolve(flags.config ?? defaultConfigPath(dataDir))
  // Instances sharing the database seal their outbox with one mail key: beside the config that each gets.
  if (postgresUrl) Object.assign(storage, { mailKeyFile: join(dirname(configFile), MAIL_KEY_FILE_NAME) })
  // Next to the config file, never in a backup: admin backup signs with it, admin restore checks with it.
  const backupKeyFile = join(dirname(configFile), BACKUP_KEY_FILE_NAME)
  const config: ServiceConfig = {
    version: 1,
    dataDir,
    listen: { host, port },
    publicUrl,
    ...(creditsUrl ? { creditsUrl } : {}),
    allowedHosts: [...new Set([publicHost.replace(/^\[(.*)\]$/, '$1'), '127.0.0.1', 'localhost'])],
    smtp,
    mailFrom,
    ...(tls ? { tls } : {}),
    ...(trustProxy ? { trustProxy } : {}),
    ...(Object.keys(storage).length ? { storage } : {}),
    backupKeyFile,
  }
  return { config, configFile, testTo }
}

/** What an SMTP failure means and what to do about it, in one or two sentences. */
export function explainSmtpFailure(error: unknown, smtp: SmtpSettings): string {
  const where = `${smtp.host}:${smtp.port}`
  const failure = error as { code?: string; responseCode?: number; response?: string; message?: string }
  const answer = failure.response ? ` (it answered: ${failure.response.trim().slice(0, 300)})` : ''
  // nodemailer reports a refused connection as ESOCKET or ECONNECTION with the system's code in the message.
  const code = /\bECONNREFUSED\b/.test(failure.message ?? '') ? 'ECONNREFUSED' : failure.code
  // Refused for want of TLS (outbox.ts explainTlsRefusal): its sentence already says what to do.
  if (code === 'ETLS' && /TLS is required/.test(failure.message ?? '')) {
    return `${failure.message!.charAt(0).toUpperCase()}${failure.message!.slice(1)} (for init: --smtp-insecure-plaintext).`
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `Nothing accepts connections at ${where}: check --smtp-host and --smtp-port (usually 587, or 465 with TLS).`
    case 'ENOTFOUND':
    case 'EDNS':
      return `The SMTP host name ${smtp.host} is not known to this machine's DNS: check --smtp-host.`
    case 'ETIMEDOUT':
    case 'ECONNECTION':
    case 'ESOCKET':
      if (/wrong version number|ssl|tls/i.test(failure.message ?? '')) {
        return `The TLS handshake with ${where} failed (${failure.message}): port 465 needs --smtp-secure, ports 587 and 25 work without it (STARTTLS).`
      }
      return `The SMTP server at ${where} did not answer properly (${failure.message}): check the host, the port and that this machine's firewall lets outgoing mail connections through.`
    case 'EAUTH':
      return `The SMTP server at ${where} refused the user name or password${answer}: check --smtp-user and --smtp-password (some providers need an app password).`
    case 'ENOAUTH':
      return `The SMTP server at ${where} wants a login: give --smtp-user and --smtp-password.`
    case 'EENVELOPE':
      return `The SMTP server at ${where} refused the sender or the recipient${answer}: check --mail-from (the server may only send for its own domain) and --test-to.`
    case 'EMESSAGE':
      return `The SMTP server at ${where} refused the message${answer}.`
  }
  return `The SMTP server at ${where} did not take the test message: ${failure.message ?? String(error)}${answer}.`
}

/** Sends the test message; resolves with the server's answer once it accepted it. */
async function sendTestMail(config: ServiceConfig, to: string): Promise<string> {
  const url = smtpUrl(config.smtp!)
  const security = smtpSecurityOf(url, config.smtp!.insecurePlaintext)
  const transport = nodemailer.createTransport(
    smtpTransportOptions(url, security, {
      connectionTimeout: MAIL_TIMEOUT_MS,
      greetingTimeout: MAIL_TIMEOUT_MS,
      socketTimeout: MAIL_TIMEOUT_MS,
    }),
  )
  try {
    const info = await transport
      .sendMail({
        from: config.mailFrom,
        to,
        subject: 'Vault Service: test e-mail from the set-up',
        text:
          `This message comes from \`npm run service -- init\` on the Vault Service at ${config.publicUrl}.\n\n` +
          'If you read it, the service can reach guardians and heirs by e-mail. Nothing else happened.\n\n' +
          `It was sent ${smtpSecurityNote(security)}.\n`,
      })
      .catch((error: unknown) => {
        throw explainTlsRefusal(error, url)
      })
    if (info.rejected.length > 0) {
      throw Object.assign(new Error(`the recipient ${to} was refused`), { code: 'EENVELOPE' })
    }
    return String(info.response ?? '')
  } finally {
    transport.close()
  }
}

/** The systemd unit that runs `serve --config` at boot and after any exit. */
export function systemdUnit(
  config: ServiceConfig,
  configFile: string,
  nodePath: string,
  scriptPath: string,
): string {
  const quote = (path: string) => (/[\s"\\]/.test(path) ? `"${path.replace(/(["\\])/g, '\\$1')}"` : path)
  return `[Unit]
Description=Vault Service (${config.publicUrl})
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=vault-service
Group=vault-service
ExecStart=${quote(nodePath)} ${quote(scriptPath)} serve --config ${quote(configFile)}
Restart=always
RestartSec=5
# serve finishes requests in flight and leaves unsent mail in the outbox on SIGTERM.
KillSignal=SIGTERM
TimeoutStopSec=30
NoNewPrivileges=true
PrivateTmp=true
ProtectSystem=full
${config.listen.port < 1024 ? 'AmbientCapabilities=CAP_NET_BIND_SERVICE\n' : ''}
[Install]
WantedBy=multi-user.target
`
}

/** Runs the set-up; returns the process exit code (0: config written). */
export async function runInit(flags: InitFlags, io: InitIo): Promise<number> {
  const say = (text: string) => io.output.write(`${text}\n`)
  const prompt = io.interactive && !flags.yes ? new Prompter(io.input, io.output) : null
  try {
    const { config, configFile, testTo } = await gather({ ...flags }, io, prompt)

    if (existsSync(configFile) && !flags.yes) {
      const replace = prompt ? await prompt.confirm(`${configFile} exists. Replace it`) : false
      if (!replace) {
        throw new InitError(
          `${configFile} exists already and was left as it is: pass --yes to replace it, or --config <file> to write another.`,
        )
      }
    }

    if (testTo === null) {
      say(
        'No test e-mail was sent (--skip-mail-test): nobody has checked yet that this SMTP server accepts mail.',
      )
    } else {
      say(`Sending a test e-mail to ${testTo} through ${config.smtp!.host}:${config.smtp!.port} ...`)
      try {
        const answer = await sendTestMail(config, testTo)
        const security = smtpSecurityOf(smtpUrl(config.smtp!), config.smtp!.insecurePlaintext)
        say(
          `The SMTP server accepted the test e-mail${answer ? ` (${answer.trim()})` : ''}, sent ${smtpSecurityNote(security)}. ` +
            `Check the inbox of ${testTo} (and its spam folder): accepted is not yet delivered.`,
        )
      } catch (error) {
        throw new InitError(
          `${explainSmtpFailure(error, config.smtp!)}\nNothing was written. Fix the SMTP settings and run init again ` +
            '(or pass --skip-mail-test to write the config without a test).',
        )
      }
    }

    if (config.storage?.postgresUrl) {
      say(`Checking the PostgreSQL database ${redactedUrl(config.storage.postgresUrl)} ...`)
      try {
        // Opening it also brings its schema up to date, once, whichever instance starts first later.
        await (await openPostgresStore(config.storage.postgresUrl, 1)).close()
      } catch (error) {
        throw new InitError(
          `${(error as Error).message}.\nNothing was written. Check the address, user and password, that the ` +
            'database exists (createdb) and that this machine may connect to it, then run init again.',
        )
      }
      say('The PostgreSQL database answers and its schema is up to date.')
    }

    try {
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
    } catch (error) {
      throw new InitError(
        `The data folder ${config.dataDir} could not be created (${(error as NodeJS.ErrnoException).code}): ` +
          'create it yourself for the service user (mode 700), or choose another --data-dir.',
      )
    }
    const backupKeyFile = config.backupKeyFile!
    try {
      if (existsSync(backupKeyFile)) {
        readBackupKeyFile(backupKeyFile)
        say(
          `\nKept the backup key ${backupKeyFile} made by an earlier init (its key was shown then): backups made with it stay restorable.`,
        )
      } else {
        const made = createBackupKeyFile(backupKeyFile)
        // Shown this once: the copy the operator keeps elsewhere is what restores after this machine is lost.
        say(`\nMade the backup key ${made.keyFile} (mode 600). admin backup signs every backup with it and`)
        say(
          'admin restore refuses a backup it did not sign, so a changed backup cannot be restored unnoticed.',
        )
        say(`  Backup key (id ${made.keyId}), shown only now: ${made.key}`)
        say(
          '  Keep a copy apart from the backups (a password manager, or paper): whoever can write to the backups must not ' +
            `have it. To restore on another machine, give it back as ${BACKUP_KEY_ENV}=<key> or --backup-key-file <file>.`,
        )
      }
    } catch (error) {
      if (error instanceof BackupError)
        throw new InitError(`${error.message}\nThe config file was not written.`)
      throw error
    }
    // Made now, so it can be copied with the config to the other instances before any of them starts.
    if (config.storage?.mailKeyFile) mailKeyOf(config.storage.mailKeyFile)
    let written: string
    try {
      written = writeServiceConfig(configFile, config)
    } catch (error) {
      if (error instanceof ServiceConfigError) throw new InitError(error.message)
      throw error
    }

    const mode = config.tls
      ? `It serves https itself on port ${config.listen.port} with ${config.tls.certFile}.`
      : config.trustProxy
        ? `It serves plain http on ${config.listen.host}:${config.listen.port} and expects a reverse proxy there to handle https ` +
          `(forwarding X-Forwarded-For/-Host/-Proto, believed only from ${config.trustProxy.join(', ')}).`
        : `It serves plain http on ${config.listen.host}:${config.listen.port}.`
    say(`\nWrote the config file ${written} (mode 600: it holds the SMTP password).`)
    say(mode)
    if (config.storage) {
      say(
        'More instances: give each machine this config with its own dataDir (and the same storage)' +
          `${config.storage.mailKeyFile ? `, and a copy of the mail key ${config.storage.mailKeyFile} (mode 600; it opens the e-mails waiting in the database)` : ''}; ` +
          `they share ${[config.storage.postgresUrl ? 'the PostgreSQL database' : '', config.storage.blobs ? `the blob folder ${config.storage.blobs.kind === 'folder' ? config.storage.blobs.path : ''}` : ''].filter(Boolean).join(' and ')}.`,
      )
    }
    say(`Try it: ${io.nodePath} ${io.scriptPath} serve --config ${written}`)
    say(`Monitors can poll ${config.publicUrl}/healthz (200 when healthy).`)
    say('\nTo run it at boot and restart it after any exit, install this systemd unit:')
    say(`  sudo useradd --system --home-dir ${config.dataDir} --shell /usr/sbin/nologin vault-service`)
    say(`  sudo chown -R vault-service:vault-service ${config.dataDir}`)
    if (!written.startsWith(`${config.dataDir}/`)) say(`  sudo chown vault-service:vault-service ${written}`)
    if (!backupKeyFile.startsWith(`${config.dataDir}/`)) {
      say(`  sudo chown vault-service:vault-service ${backupKeyFile}`)
    }
    say('  save the unit below as /etc/systemd/system/vault-service.service, then:')
    say('  sudo systemctl daemon-reload && sudo systemctl enable --now vault-service')
    say(
      `  (the vault-service user must be able to read ${io.scriptPath} and its node_modules${config.tls ? ' and the TLS files' : ''}; ` +
        'after updating the code, run `node scripts/build-cli.mjs service` and `sudo systemctl restart vault-service`)',
    )
    say(`\n${systemdUnit(config, written, io.nodePath, io.scriptPath)}`)
    return 0
  } finally {
    prompt?.close()
  }
}
