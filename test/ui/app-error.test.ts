// One error convention from the core to the screen (docs/ARCHITECTURE.md): core errors are AppErrors
// (a code, a sentence for the user, a technical detail apart from it); asAppError in handler-table.ts
// is the only place a thrown value becomes what the window shows; the renderer rebuilds an AppError.
// The behaviour of that one translation per family of errors, then a scan that keeps a second
// convention (duck-typed userMessage, toIpcError methods, hand-made translators) from coming back.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConnectionError } from '../../src/main/core/connections'
import { asAppError, dispatch, type HandlerTable } from '../../src/main/core/ipc/handler-table'
import { HeirAccessError } from '../../src/recovery/heir-recovery'
import { RecoveryInputError } from '../../src/recovery/recovery-key'
import { RecoveryWriteError } from '../../src/recovery/recovery-writer'
import { errorView, UiError } from '../../src/renderer/display/error-text'
import { VaultApiError } from '../../src/service-client'
import { AppError, type AppErrorData } from '../../src/shared/app-error'
import { unwrapBridge } from '../../src/shared/ipc/bridge'
import { invokeChannels } from '../../src/shared/ipc/contract'
import { FileCipherError, ShareInputError } from '../../src/vault-format'

/** What the window receives for a thrown value, after the trip over the bridge. */
function onScreen(thrown: unknown): AppErrorData {
  const data = asAppError(thrown).toData()
  // Electron clones it, browser mode sends it as JSON: both must carry it whole.
  expect(structuredClone(data)).toEqual(data)
  expect(JSON.parse(JSON.stringify(data))).toEqual(data)
  return data
}

describe('the one translation of errors', () => {
  it('a service refusal keeps its code, status and Retry-After, with the HTTP detail apart', () => {
    const limited = new VaultApiError({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'slow down',
      operation: 'list vaults',
      retryAfterSeconds: 7,
    })
    const data = onScreen(limited)
    expect(data).toEqual({
      code: 'RATE_LIMITED',
      status: 429,
      retryAfterSeconds: 7,
      message: limited.userMessage,
      detail: 'list vaults: slow down (HTTP 429 RATE_LIMITED)',
    })
    expect(data.message).toMatch(/wait 7 s/)
    expect(data.message).not.toContain('HTTP 429')

    const broke = onScreen(
      new VaultApiError({ code: 'INSUFFICIENT_CREDITS', status: 402, message: 'no', operation: 'check in' }),
    )
    expect(broke).toMatchObject({ code: 'INSUFFICIENT_CREDITS', status: 402 })
    expect(broke.message).toMatch(/balance is too low/)
  })

  it('no answer at all is status-less: the sentence says what to check', () => {
    const data = onScreen(
      new VaultApiError({
        code: 'NETWORK_ERROR',
        status: 0,
        message: 'ECONNREFUSED',
        operation: 'get vault',
      }),
    )
    expect(data.status).toBeUndefined()
    expect(data).toMatchObject({ code: 'NETWORK_ERROR', detail: 'get vault: ECONNREFUSED' })
    expect(data.message).toMatch(/Could not reach the Vault Service/)
  })

  it('a connection error gives its sentence, not its technical text', () => {
    const data = onScreen(
      new ConnectionError('no active connection', 'No Vault Service is connected. Add a connection.'),
    )
    expect(data).toEqual({
      code: 'CONNECTION_PROBLEM',
      message: 'No Vault Service is connected. Add a connection.',
      detail: 'no active connection',
    })
  })

  it('vault-format errors (a library that knows nothing of the app) are recognised by class', () => {
    const share = onScreen(new ShareInputError('checksum', 'Word 7 looks mistyped: check it on the kit.', 7))
    expect(share).toMatchObject({
      code: 'SHARE_INVALID',
      message: 'Word 7 looks mistyped: check it on the kit.',
      detail: 'share input: checksum',
    })
    const cipher = onScreen(
      new FileCipherError('damaged', 'This file was changed after it was encrypted.', 3),
    )
    expect(cipher).toMatchObject({
      code: 'DECRYPTION_FAILED',
      message: 'This file was changed after it was encrypted.',
      detail: 'file cipher: damaged at chunk 3',
    })
  })

  it('recovery errors carry their codes and sentences', () => {
    expect(onScreen(new RecoveryInputError('Kit 2: the words do not read. Check them.'))).toEqual({
      code: 'RECOVERY_INPUT_INVALID',
      message: 'Kit 2: the words do not read. Check them.',
    })
    expect(onScreen(new RecoveryWriteError('exists', 'A different file is there.', '/out/a'))).toEqual({
      code: 'RECOVERY_WRITE_FAILED',
      message: 'A different file is there.',
    })
    expect(onScreen(new HeirAccessError('ACCESS_REFUSED', 'The code was not accepted.', 401))).toEqual({
      code: 'ACCESS_REFUSED',
      status: 401,
      message: 'The code was not accepted.',
    })
  })

  it('anything else is INTERNAL: what failed goes in the detail, never in the sentence', () => {
    const data = onScreen(new TypeError("Cannot read properties of undefined (reading 'id')"))
    expect(data.code).toBe('INTERNAL')
    expect(data.message).toBe(
      'Something went wrong inside the app. Try again; if it keeps happening, restart Vault Desktop.',
    )
    expect(data.message).not.toContain('undefined')
    expect(data.detail).toBe("TypeError: Cannot read properties of undefined (reading 'id')")
    expect(onScreen('a thrown string')).toMatchObject({ code: 'INTERNAL', detail: 'a thrown string' })
  })

  it('an error that explains another keeps it as its cause, for logs', () => {
    const cause = new VaultApiError({
      code: 'UNAUTHORIZED',
      status: 401,
      message: 'bad',
      operation: 'list vaults',
    })
    const wrapped = new AppError({
      code: 'KEY_REJECTED',
      userMessage: 'Check the key.',
      detail: cause.detail,
      cause,
    })
    expect(wrapped.cause).toBe(cause)
    expect(wrapped.message).toBe('list vaults: bad (HTTP 401 UNAUTHORIZED)')
    expect(onScreen(wrapped)).toEqual({
      code: 'KEY_REJECTED',
      message: 'Check the key.',
      detail: 'list vaults: bad (HTTP 401 UNAUTHORIZED)',
    })
  })
})

describe('from a handler to the screen', () => {
  const failing = (thrown: unknown) =>
    ({
      getSettings: () => {
        throw thrown
      },
    }) as unknown as HandlerTable

  it('dispatch answers every failure through the one translation', async () => {
    const thrown = new Error('disk full')
    const response = await dispatch(failing(thrown), invokeChannels.getSettings.name, undefined)
    expect(response).toEqual({ ok: false, error: asAppError(thrown).toData() })
  })

  it('the renderer rebuilds an AppError: the sentence to show, the detail to disclose', async () => {
    const bridge = unwrapBridge({
      getSettings: () =>
        dispatch(
          failing(new Error('EACCES: /home/me/.config/settings.json')),
          invokeChannels.getSettings.name,
          undefined,
        ),
    } as never)
    const failure = await bridge.getSettings().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(AppError)
    const view = errorView(failure)
    expect(view).toMatchObject({ code: 'INTERNAL', detail: 'Error: EACCES: /home/me/.config/settings.json' })
    expect(view.message).toMatch(/^Something went wrong inside the app\./)

    const refused = errorView(AppError.fromData({ code: 'CONFLICT', status: 409, message: 'Already there.' }))
    expect(refused).toMatchObject({ message: 'Already there.', detail: undefined })
    // The window's own words stay in their language.
    expect(errorView(new UiError('No es una imagen.', 'es'))).toMatchObject({
      message: 'No es una imagen.',
      lang: 'es',
    })
  })
})

// ---- no second convention ----

const ROOT = join(import.meta.dirname, '..', '..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

const files = sourceFiles(SRC).map((path) => ({
  path: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}))

function findings(pattern: RegExp, only: (path: string) => boolean = () => true): string[] {
  return files
    .filter((file) => only(file.path))
    .flatMap((file) =>
      file.text
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${file.path}:${i + 1}: ${line.trim()}`] : [])),
    )
}

/** The Vault Service is its own program with its own HTTP error envelope (src/service/errors.ts). */
const appSide = (path: string) => !path.startsWith('src/service/')

/**
 * Error classes of the app that are not AppErrors, each with why: the vault-format library and the
 * Node cipher cannot import src/shared (they are recognised by class in asAppError or caught where
 * they are thrown); the rest never reach a person.
 */
const PLAIN_ERROR_CLASSES: Record<string, string> = {
  'src/main/core/uploads/send-job.ts: AbortReason': 'why a job was aborted; settled by the queue itself',
  'src/service-client/transport.ts: AnswerCutOff':
    'why an answer was cut off while it arrived; the transport turns it into a VaultApiError (BAD_RESPONSE)',
}

describe('one error convention, and only one', () => {
  it('no duck-typed userMessage and no toIpcError methods', () => {
    expect(
      findings(/toIpcError|\bIpcError\b|IpcErrorData|UserFacingError|hasUserMessage|isUserFacing/, appSide),
    ).toEqual([])
    expect(findings(/['"]userMessage['"]\s+in\b|as \{[^}]*userMessage|get userMessage\(/, appSide)).toEqual(
      [],
    )
    // Only AppError declares the sentence; every other error inherits it.
    expect(
      findings(/readonly userMessage\b/, (path) => appSide(path) && path !== 'src/shared/app-error.ts'),
    ).toEqual([])
  })

  it('every error class of the app is an AppError (or says why not)', () => {
    const plain = files
      .filter((file) => appSide(file.path) && !/^src\/(vault-format|node-cipher)\//.test(file.path))
      .flatMap((file) =>
        [...file.text.matchAll(/class (\w+) extends Error\b/g)].map((m) => `${file.path}: ${m[1]}`),
      )
      .filter((name) => name !== 'src/shared/app-error.ts: AppError')
    expect(plain.filter((name) => !(name in PLAIN_ERROR_CLASSES))).toEqual([])
  })

  it('library errors are recognised in one place, not translated again by each handler or shell', () => {
    expect(
      findings(
        /instanceof (ShareInputError|FileCipherError|RecoveryInputError|RecoveryWriteError|HeirAccessError)\b/,
        (path) =>
          /^src\/main\/(core\/ipc|electron|browser)\//.test(path) && !path.endsWith('/handler-table.ts'),
      ),
    ).toEqual([])
    // Failed answers carry AppError.toData(), never an error written out by hand.
    expect(findings(/ok: false, error: \{/, (path) => path.startsWith('src/main/'))).toEqual([])
  })
})
