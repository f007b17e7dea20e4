// Self-hosting set-up: `init` (flags and prompts) sends a test e-mail through a real SMTP server on loopback,
// writes a private config file and prints a systemd unit; `serve --config` (or the data folder's config) runs
// from it; every failure an operator can meet says what happened and what to do. It makes the backup key once,
// shows it once, and refuses a plain-http public URL to another computer.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { promisify } from 'node:util'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CONFIG_FILE_NAME,
  parseSmtpUrl,
  readServiceConfig,
  ServiceConfigError,
  smtpUrl,
  writeServiceConfig,
} from '../../src/service/service-config'
import { InitError, type InitFlags, InitUsageError, runInit } from '../../src/service/service-init'
import { buildServiceCli, serveChild } from './harness'

interface Received {
  to: string[]
  raw: string
  user: string | null
}

const received: Received[] = []
const logins: { user: string; password: string }[] = []
let smtp: SMTPServer
let smtpPort: number
const folders: string[] = []
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-service-init-'))
  folders.push(dir)
  return dir
}
const root = join(import.meta.dirname, '../..')
let cli = ''

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ user: auth.username ?? '', password: auth.password ?? '' })
      if (auth.password === 'wrong') return callback(new Error('535 Authentication failed'))
      callback(null, { user: auth.username })
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.example')) return callback(new Error('550 No such user here'))
      callback()
    },
    onData(stream, session, callback) {
      let raw = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => {
        raw += chunk
      })
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          user: (session.user as string | undefined) ?? null,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  smtpPort = (smtp.server.address() as AddressInfo).port
  cli = await buildServiceCli()
})
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
  for (const dir of folders) rmSync(dir, { recursive: true, force: true })
  rmSync(cli, { force: true })
})

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Runs init in this process; answers prompts from `answers`, one per question, as they are asked. */
async function init(flags: InitFlags, answers: string[] | null = null) {
  const input = new PassThrough()
  const output = new PassThrough()
  let text = ''
  output.on('data', (chunk) => {
    text += chunk
    // A question ends with ": " and waits: give the next answer.
    if (answers && /: $/.test(text)) input.write(`${answers.shift() ?? ''}\n`)
  })
  let code: number | undefined
  let error: unknown
  try {
    code = await runInit(flags, {
      input,
      output,
      interactive: answers !== null,
      nodePath: '/usr/bin/node',
      scriptPath: '/opt/vault/out/cli/service.js',
    })
  } catch (failure) {
    error = failure
  }
  return { code, error, text }
}

describe('config file', () => {
  it('is written 0600 whatever the umask, read back, and refused with a plain reason when wrong', () => {
    const dir = folder()
    const file = join(dir, 'nested', 'service.json')
    const config = {
      version: 1 as const,
      dataDir: dir,
      listen: { host: '127.0.0.1', port: 0 },
      publicUrl: 'https://vault.example.org',
      smtp: { host: 'mail.example.org', port: 587, secure: false, user: 'u', password: 'p' },
    }
    const before = process.umask(0)
    try {
      expect(writeServiceConfig(file, config)).toBe(file)
    } finally {
      process.umask(before)
    }
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700)
    expect(readServiceConfig(file)).toEqual(config)

    const problem = (text: string) => {
      writeFileSync(file, text, { mode: 0o600 })
      try {
        readServiceConfig(file)
      } catch (error) {
        expect(error).toBeInstanceOf(ServiceConfigError)
        return (error as Error).message
      }
      throw new Error('accepted')
    }
    expect(problem('{ nope')).toMatch(/is not valid JSON .*init/)
    expect(problem(JSON.stringify({ ...config, publicUrl: 'ftp://x' }))).toMatch(
      /publicUrl: must be an http:\/\/ or https:\/\/ address/,
    )
    expect(problem(JSON.stringify({ ...config, colour: 'red' }))).toMatch(/wrong settings .*colour/)
    expect(() => readServiceConfig(join(dir, 'missing.json'))).toThrow(
      /There is no config file at .*missing\.json: create one with `npm run service -- init`/,
    )
    // A file where a folder should be: the write fails, says where and what to do, and leaves nothing behind.
    expect(() => writeServiceConfig(join(file, 'inside.json'), config)).toThrow(
      /could not be written to .*inside\.json \((EEXIST|ENOTDIR)\): a file stands where a folder of that path should be/,
    )
  })

  it('keeps any character of the SMTP user and password through the URL nodemailer reads', () => {
    const settings = {
      host: 'mail.example.org',
      port: 465,
      secure: true,
      user: 'me@example.org',
      password: 'p:@/%x y#?',
    }
    expect(parseSmtpUrl(smtpUrl(settings))).toEqual(settings)
    expect(parseSmtpUrl('smtp://mail.example.org')).toEqual({
      host: 'mail.example.org',
      port: 587,
      secure: false,
    })
    expect(parseSmtpUrl('http://mail.example.org')).toBeNull()
  })
})

describe('init', () => {
  it('with flags: sends the test e-mail, writes the config 0600 and prints a systemd unit', async () => {
    const dir = join(folder(), 'data')
    const password = 'p:@/%x y'
    const result = await init({
      yes: true,
      'public-url': 'https://vault.example.org/',
      'data-dir': dir,
      'smtp-host': '127.0.0.1',
      'smtp-port': String(smtpPort),
      'smtp-user': 'mailer',
      'smtp-password': password,
      'mail-from': 'Vault <vault@example.org>',
      'test-to': 'owner@example.org',
      'behind-proxy': true,
    })
    expect(result.error).toBeUndefined()
    expect(result.code).toBe(0)
    const mail = received.find((m) => m.to.includes('owner@example.org'))!
    expect(mail.raw).toContain('Vault Service: test e-mail from the set-up')
    expect(mail.user).toBe('mailer')
    expect(logins).toContainEqual({ user: 'mailer', password })
    expect(result.text).toContain('The SMTP server accepted the test e-mail')
    expect(result.text).toContain('Check the inbox of owner@example.org (and its spam folder)')

    const file = join(dir, CONFIG_FILE_NAME)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(result.text).toContain(`Wrote the config file ${file} (mode 600`)
    expect(readServiceConfig(file)).toEqual({
      version: 1,
      dataDir: dir,
      listen: { host: '127.0.0.1', port: 8787 },
      publicUrl: 'https://vault.example.org',
      allowedHosts: ['vault.example.org', '127.0.0.1', 'localhost'],
      smtp: { host: '127.0.0.1', port: smtpPort, secure: false, user: 'mailer', password },
      mailFrom: 'Vault <vault@example.org>',
      trustProxy: ['127.0.0.1', '::1'],
      backupKeyFile: join(dir, 'backup.key'),
    })
    // The backup key: 0600 beside the config, shown once in full.
    const key = readFileSync(join(dir, 'backup.key'), 'utf8').trim()
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(join(dir, 'backup.key')).mode & 0o777).toBe(0o600)
    expect(result.text).toContain(`shown only now: ${key}`)
    expect(result.text).toMatch(/Keep a copy apart from the backups .*VAULT_BACKUP_KEY=<key>/)
    expect(result.text).toContain('expects a reverse proxy')
    expect(result.text).toContain(
      `ExecStart=/usr/bin/node /opt/vault/out/cli/service.js serve --config ${file}`,
    )
    expect(result.text).toMatch(/^Restart=always$/m)
    expect(result.text).toMatch(/^User=vault-service$/m)
    expect(result.text).toContain('useradd --system')
    expect(result.text).toContain('/healthz')

    // A second run does not replace the file without --yes.
    const again = await init({ ...flagsOf(dir), yes: false })
    expect(again.error).toBeInstanceOf(InitError)
    expect((again.error as Error).message).toMatch(/exists already and was left as it is: pass --yes/)
    // Replacing the config keeps the key (older backups need it) and does not show it again.
    const replaced = await init(flagsOf(dir))
    expect(replaced.code).toBe(0)
    expect(replaced.text).toContain(`Kept the backup key ${join(dir, 'backup.key')} made by an earlier init`)
    expect(replaced.text).not.toContain(key)
    expect(readFileSync(join(dir, 'backup.key'), 'utf8').trim()).toBe(key)
  })

  it('refuses a plain-http public URL to another computer, whatever the flags, and says what to give', async () => {
    const dir = join(folder(), 'plain-http')
    const cases: [InitFlags, RegExp][] = [
      [
        { ...flagsOf(dir), 'public-url': 'http://vault.example.org', 'behind-proxy': false },
        /plain http to another computer: .*access code.*Give --public-url https:\/\/vault\.example\.org with --tls-cert\/--tls-key .* or --behind-proxy/,
      ],
      [
        { ...flagsOf(dir), 'public-url': 'http://192.168.1.20:8787', 'behind-proxy': false },
        /Give --public-url https:\/\/192\.168\.1\.20:8787 with/,
      ],
      [
        { ...flagsOf(dir), 'public-url': 'http://vault.example.org' },
        /A reverse proxy that handles https makes the address people open https:\/\/vault\.example\.org: give that as --public-url/,
      ],
      [
        {
          ...flagsOf(dir),
          'public-url': 'http://vault.example.org',
          'behind-proxy': false,
          'trust-proxy': '10.0.0.2',
        },
        /A reverse proxy that handles https/,
      ],
    ]
    for (const [flags, message] of cases) {
      const result = await init(flags)
      expect(result.error, String(message)).toBeInstanceOf(InitUsageError)
      expect((result.error as Error).message).toMatch(message)
    }
    expect(() => statSync(dir)).toThrow()
    // Asked on a terminal: refused right after the address, before anything else is asked.
    const asked = await init({}, ['http://vault.example.org'])
    expect(asked.error).toBeInstanceOf(InitUsageError)
    expect(asked.text).not.toContain('Data folder')
    // Loopback is this computer only: accepted, and served on loopback rather than on every interface.
    const local = await init({
      ...flagsOf(dir),
      'public-url': 'http://127.0.0.1:8787',
      'behind-proxy': false,
    })
    expect(local.error).toBeUndefined()
    expect(readServiceConfig(join(dir, CONFIG_FILE_NAME)).listen).toEqual({ host: '127.0.0.1', port: 8787 })
  })

  it('asks on a terminal for what the flags leave out, the password unshown', async () => {
    const dir = join(folder(), 'asked')
    const answers = [
      'https://family.example.net', // public URL
      dir, // data folder
      'https://family.example.net/buy-credits', // the page where owners buy credits
      '127.0.0.1', // SMTP host
      String(smtpPort), // SMTP port
      'asker', // SMTP user
      'secret-word', // password
      '', // sender: the offered default
      'heir-test@example.net', // test recipient
      'y', // a reverse proxy handles https
    ]
    const result = await init({}, answers)
    expect(result.error).toBeUndefined()
    expect(result.code).toBe(0)
    expect(result.text).toContain('Public URL guardians and heirs will open')
    expect(result.text).toContain('SMTP password (not shown')
    expect(result.text).toContain('Page where owners buy credits')
    expect(result.text).not.toContain('secret-word')
    const config = readServiceConfig(join(dir, CONFIG_FILE_NAME))
    expect(config).toMatchObject({
      publicUrl: 'https://family.example.net',
      creditsUrl: 'https://family.example.net/buy-credits',
      mailFrom: 'Vault Service <vault@family.example.net>',
      smtp: { user: 'asker', password: 'secret-word' },
      trustProxy: ['127.0.0.1', '::1'],
    })
    expect(received.some((m) => m.to.includes('heir-test@example.net'))).toBe(true)
  })

  it('says plainly when the SMTP server refuses, and writes nothing', async () => {
    const dir = join(folder(), 'refused')
    const closed = await init({ ...flagsOf(dir), 'smtp-port': String(await closedPort()) })
    expect(closed.error).toBeInstanceOf(InitError)
    expect((closed.error as Error).message).toMatch(
      /^Nothing accepts connections at 127\.0\.0\.1:\d+: check --smtp-host and --smtp-port.*\nNothing was written\./,
    )
    const login = await init({ ...flagsOf(dir), 'smtp-user': 'x', 'smtp-password': 'wrong' })
    expect((login.error as Error).message).toMatch(/refused the user name or password .*check --smtp-user/)
    const recipient = await init({ ...flagsOf(dir), 'test-to': 'ghost@refused.example' })
    expect((recipient.error as Error).message).toMatch(/refused the sender or the recipient/)
    expect(() => statSync(join(dir, CONFIG_FILE_NAME))).toThrow()
  })

  it('refuses missing or contradictory flags with what to give instead', async () => {
    const dir = join(folder(), 'flags')
    const cases: [InitFlags, RegExp][] = [
      [{ ...flagsOf(dir), 'public-url': undefined }, /--public-url is required when init cannot ask/],
      [
        { ...flagsOf(dir), 'public-url': 'vault.example.org' },
        /--public-url must be an http:\/\/ or https:\/\//,
      ],
      [
        { ...flagsOf(dir), 'behind-proxy': false },
        /is https, but nothing here would speak https: give --tls-cert/,
      ],
      [{ ...flagsOf(dir), 'tls-cert': '/x.pem' }, /--tls-cert and --tls-key go together/],
      [{ ...flagsOf(dir), 'smtp-port': 'many' }, /--smtp-port must be a whole number/],
      [{ ...flagsOf(dir), smtp: 'mail.example.org' }, /--smtp must be an smtp:\/\/ or smtps:\/\/ URL/],
      [{ ...flagsOf(dir), 'test-to': undefined }, /--test-to is required/],
      [
        { ...flagsOf(dir), 'credits-url': 'javascript:alert(1)' },
        /--credits-url must be an http:\/\/ or https:\/\/ page/,
      ],
    ]
    for (const [flags, message] of cases) {
      const result = await init(flags)
      expect(result.error, String(message)).toBeInstanceOf(InitUsageError)
      expect((result.error as Error).message).toMatch(message)
    }
    const unreadable = await init({
      ...flagsOf(dir),
      'behind-proxy': false,
      'tls-cert': '/nonexistent/cert.pem',
      'tls-key': '/nonexistent/key.pem',
    })
    expect(unreadable.error).toBeInstanceOf(InitError)
    expect((unreadable.error as Error).message).toMatch(
      /The TLS certificate \/nonexistent\/cert\.pem could not be read \(ENOENT\)/,
    )
  })
})

/** Flags for a non-interactive init against the loopback SMTP server. */
function flagsOf(dir: string): InitFlags {
  return {
    yes: true,
    'public-url': 'https://vault.example.org',
    'data-dir': dir,
    'smtp-host': '127.0.0.1',
    'smtp-port': String(smtpPort),
    'mail-from': 'vault@example.org',
    'test-to': 'owner@example.org',
    'behind-proxy': true,
  }
}

const run = promisify(execFile)

describe('npm run service -- init, then serve --config', () => {
  it('sets up from flags and serves from the config file it wrote, or from the data folder', async () => {
    const dir = join(folder(), 'cli')
    const file = join(folder(), 'etc', 'vault.json')
    const { stdout } = await run(
      process.execPath,
      [
        cli,
        'init',
        '--yes',
        '--public-url',
        'http://127.0.0.1',
        '--data-dir',
        dir,
        '--config',
        file,
        '--smtp',
        `smtp://127.0.0.1:${smtpPort}`,
        '--mail-from',
        'vault@example.org',
        '--test-to',
        'cli@example.org',
        '--host',
        '127.0.0.1',
        '--port',
        String(await closedPort()),
      ],
      { cwd: root },
    )
    expect(stdout).toContain(`ExecStart=${process.execPath} ${cli} serve --config ${file}`)
    expect(statSync(file).mode & 0o777).toBe(0o600)

    for (const args of [
      ['--config', file],
      ['--data-dir', dir, '--port', '0'],
    ]) {
      if (args[0] === '--data-dir')
        writeFileSync(join(dir, CONFIG_FILE_NAME), readFileSync(file), { mode: 0o600 })
      const served = serveChild(cli, ...args)
      try {
        const url = await served.url
        const health = await fetch(`${url}/healthz`)
        expect(health.status).toBe(200)
        // The SMTP settings came from the config file.
        expect(((await health.json()) as { mail: { state: string } }).mail.state).toBe('ok')
      } finally {
        served.child.kill('SIGTERM')
        expect((await served.exit).code).toBe(0)
      }
    }

    // admin backup signs with the key the config names; restore checks with it, into a new machine's data
    // folder that holds only init's config file.
    const admin = async (...args: string[]) => {
      try {
        return JSON.parse((await run(process.execPath, [cli, 'admin', ...args], { cwd: root })).stdout)
      } catch (error) {
        return JSON.parse((error as { stdout: string }).stdout)
      }
    }
    const keyFile = join(file, '..', 'backup.key')
    expect(readServiceConfig(file).backupKeyFile).toBe(keyFile)
    const intoKeyFolder = await admin(
      'backup',
      '--config',
      file,
      '--data-dir',
      dir,
      '--to',
      join(keyFile, '..'),
    )
    expect(intoKeyFolder.error).toMatch(/The backup key file .* is inside the backup folder/)
    const copy = join(folder(), 'backup')
    const backup = await admin('backup', '--config', file, '--data-dir', dir, '--to', copy)
    expect(backup.keyId).toMatch(/^[0-9a-f]{16}$/)
    expect(stdout).toContain(`Backup key (id ${backup.keyId}), shown only now:`)
    const newMachine = join(folder(), 'new-machine')
    mkdirSync(newMachine)
    writeFileSync(join(newMachine, CONFIG_FILE_NAME), readFileSync(file), { mode: 0o600 })
    const restored = await admin('restore', '--config', file, '--from', copy, '--data-dir', newMachine)
    expect(restored).toMatchObject({ dataDir: newMachine, tamperCheck: 'verified' })
    expect(readFileSync(join(newMachine, CONFIG_FILE_NAME), 'utf8')).toBe(readFileSync(file, 'utf8'))
  })

  it('explains a broken config file and a wrong init flag', async () => {
    const file = join(folder(), 'broken.json')
    writeFileSync(file, '{"version": 2}')
    const served = await serveChild(cli, '--config', file).exit
    expect(served.code).toBe(1)
    expect(served.stderr).toMatch(/^The config file .*broken\.json has wrong settings \(version: /)
    try {
      await run(process.execPath, [cli, 'init', '--yes', '--public-url', 'nope'], { cwd: root })
      throw new Error('init accepted a wrong URL')
    } catch (error) {
      const { code, stderr } = error as { code: number; stderr: string }
      expect(code).toBe(2)
      expect(stderr).toMatch(/^service: --public-url must be an http:\/\/ or https:\/\/ address/)
      expect(stderr).toContain('\n\nUsage:\n')
    }
  })
})
