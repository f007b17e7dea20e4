// A 402 says what a check-in costs and what the balance is, so the window can show both; an upload
// estimate states the cost against the balance before anything is sent.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type AppBackend, createAppBackend } from '../../src/main/core/app-backend'
import { encodeOwnerKitWords, encryptedLength, generateVaultKey } from '../../src/main/core/crypto'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { type RunningService, startService } from '../../src/service'
import { uploadCostCredits } from '../../src/shared/api'
import { invokeChannels } from '../../src/shared/ipc/contract'

let service: RunningService
let backend: AppBackend
let dirs: string[]

const call = (key: keyof typeof invokeChannels, args?: unknown) =>
  dispatch(backend.handlers, invokeChannels[key].name, args)

beforeAll(async () => {
  dirs = [await mkdtemp(join(tmpdir(), 'vault-402-svc-')), await mkdtemp(join(tmpdir(), 'vault-402-app-'))]
  service = await startService({ dataDir: dirs[0]!, port: 0 })
  backend = createAppBackend({ userDataDir: dirs[1]!, mode: 'browser', version: '0', useKeychain: false })
})
afterAll(async () => {
  await backend?.close()
  await service?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

it('an upload that leaves 1 credit makes the next check-in a 402 that states cost and balance', async () => {
  const account = service.admin.createAccount({ email: 'spend@example.com' })
  const { vaultId } = service.admin.createVault({ account: account.accountId, preset: 'standard' })
  expect(await call('connectService', { serviceUrl: service.url, apiKey: account.apiKey })).toMatchObject({
    ok: true,
  })
  const words = encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId })
  expect(await call('importOwnerKit', { vaultId, words })).toMatchObject({ ok: true })
  expect(
    await call('configureRelease', { vaultId, trigger: 'dead_man_switch', checkInFrequency: 'weekly' }),
  ).toMatchObject({ ok: true })

  // 99 credits of storage: ciphertext just under 99 * 10^9 / 4650 bytes.
  const plaintext = 21_200_000
  expect(uploadCostCredits(encryptedLength(plaintext))).toBe(99)
  const file = join(dirs[1]!, 'big.bin')
  await writeFile(file, Buffer.alloc(plaintext, 7))
  const estimate = await call('estimateUpload', { vaultId, paths: [file] })
  expect(estimate).toMatchObject({ ok: true, value: { credits: 99, balanceCredits: 100, enough: true } })
  expect(await call('queueUpload', { vaultId, paths: [file] })).toMatchObject({
    ok: true,
    value: { queued: 1 },
  })
  await expect
    .poll(
      async () => {
        const list = await call('listUploads')
        return list.ok ? (list.value as Array<{ state: string }>)[0]?.state : 'error'
      },
      { timeout: 30_000 },
    )
    .toBe('done')

  const refused = await call('checkIn', { vaultId })
  expect(refused).toMatchObject({
    ok: false,
    error: { code: 'INSUFFICIENT_CREDITS', status: 402, details: { creditsNeeded: 2 } },
  })
  if (!refused.ok) expect(refused.error.message).toContain('A check-in costs 2 credits')
})
