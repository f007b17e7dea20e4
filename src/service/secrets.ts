// Identifiers, bearer secrets (API keys, guardian and heir tokens) and how secrets are stored: hashed;
// mail bodies that carry them, sealed.
import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { KEY_PREFIX } from '../shared/api'

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`
}

/** A bearer secret with 256 bits of entropy after its prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`
}

/** Secrets are high-entropy, so a plain SHA-256 is enough to store them (no password stretching needed). */
export function hashSecret(secret: string): Buffer {
  // The one-shot hash: a Hash object per call cost 1.1 µs against 0.6 µs, on every authenticated request.
  return hash('sha256', secret, 'buffer')
}

/** The same hash as base64 text, for in-memory lookups of a presented secret (0.2 µs, no Buffer). */
export function hashSecretText(secret: string): string {
  return hash('sha256', secret, 'base64')
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

export const HEIR_TOKEN_PREFIX = 'hk_'
export const GUARDIAN_TOKEN_PREFIX = 'gt_'
export const CHECK_IN_TOKEN_PREFIX = 'ck_'
/** A kit-check reminder's link: it can confirm that guardian's kit and nothing else. */
export const KIT_CHECK_TOKEN_PREFIX = 'kc_'

/** What replaces a token in a delivered e-mail's stored copy. */
export const REDACTED_SECRET = '[removed after delivery]'

// Every bearer secret the service issues: a known prefix, then newSecret's 43 base64url characters.
const SECRET_PATTERN = new RegExp(
  `(?:${[GUARDIAN_TOKEN_PREFIX, HEIR_TOKEN_PREFIX, CHECK_IN_TOKEN_PREFIX, KIT_CHECK_TOKEN_PREFIX, ...Object.values(KEY_PREFIX)].join('|')})[A-Za-z0-9_-]{43,}`,
  'g',
)

/** The text with every token (guardian, check-in and kit-check links, heir and practice access codes, API keys) replaced by a marker. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, REDACTED_SECRET)
}

// ---- Mail bodies at rest ----
// An e-mail waiting in the outbox carries tokens (guardian and check-in links, access codes). The database
// holds it sealed (AES-256-GCM) under a key kept in the data folder, never in the database, so the
// database's files, its WAL, WAL archives and point-in-time backups hold no usable token.

/**
 * The mail key's file in the data folder (0600) unless storage.mailKeyFile names another. Instances sharing
 * one PostgreSQL database need the same key; it never goes into the database or a backup of it.
 */
export const MAIL_KEY_FILE_NAME = 'mail.key'

export interface MailKey {
  /** Names the key in each sealed body (a hash of it, useless without it). */
  readonly id: string
  readonly key: Buffer
  readonly file: string
}

/** The mail key in `keyFile`, made (32 random bytes, 0600) the first time it is needed. */
export function mailKeyOf(keyFile: string): MailKey {
  // Read at each use (mail is rare): a key file put back or replaced counts at once.
  const file = resolve(keyFile)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(
        `the mail key ${file} could not be read (${(error as NodeJS.ErrnoException).code ?? error}): run the service as the user that owns it`,
      )
    }
    text = `${randomBytes(32).toString('base64')}\n`
    try {
      // 'wx': if another process made it meanwhile, its key is the one to use.
      writeFileSync(file, text, { mode: 0o600, flag: 'wx' })
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced
      text = readFileSync(file, 'utf8')
    }
  }
  const key = Buffer.from(text.trim(), 'base64')
  if (key.length !== 32) {
    throw new Error(
      `the mail key ${file} is not 32 bytes of base64: put back the file from a backup of the data folder, or (losing the unsent mail) delete it`,
    )
  }
  return { id: mailKeyId(key), key, file }
}

function mailKeyId(key: Buffer): string {
  return hash('sha256', Buffer.concat([Buffer.from('vault-service mail key id\0'), key]), 'hex').slice(0, 16)
}

const SEALED_PREFIX = 'sealed-1.'
const SEALED_PATTERN = /^sealed-1\.([0-9a-f]{16})\.([A-Za-z0-9_-]+)$/

/** Which mail key sealed a stored body; null for a body stored in clear (redacted after delivery, or from before). */
export function sealedKeyId(stored: string): string | null {
  return SEALED_PATTERN.exec(stored)?.[1] ?? null
}

/**
 * Seals a mail body. `binding` (recipient, kind, vault) is authenticated with it: a body moved to
 * another row, or a row whose recipient was changed in the database, no longer opens.
 */
export function sealMailBody(mailKey: MailKey, body: string, binding: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', mailKey.key, iv)
  cipher.setAAD(Buffer.from(`${mailKey.id}\0${binding}`))
  const sealed = Buffer.concat([iv, cipher.update(body, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `${SEALED_PREFIX}${mailKey.id}.${sealed.toString('base64url')}`
}

/** The body of a sealed one (as stored when not sealed); throws when this key did not seal it or it was changed. */
export function openMailBody(mailKey: MailKey, stored: string, binding: string): string {
  const match = SEALED_PATTERN.exec(stored)
  if (!match) return stored
  if (match[1] !== mailKey.id) {
    throw new Error(
      `sealed with another mail key (${match[1]}) than ${mailKey.file} (${mailKey.id}): copy the mail key of the instance that queued it`,
    )
  }
  const sealed = Buffer.from(match[2]!, 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', mailKey.key, sealed.subarray(0, 12))
  decipher.setAAD(Buffer.from(`${mailKey.id}\0${binding}`))
  decipher.setAuthTag(sealed.subarray(sealed.length - 16))
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(12, sealed.length - 16)),
      decipher.final(),
    ]).toString('utf8')
  } catch {
    throw new Error(
      'its sealed body does not open: the row was changed in the database (its recipient or its text)',
    )
  }
}
