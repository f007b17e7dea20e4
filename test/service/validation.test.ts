// Bad input: every validation rule, with messages that name the field.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ethereumAddressProblem } from '../../src/service/validation'
import { call, startTestService, type TestService, uploadForm } from './harness'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t.stop())

const post = (path: string, json: unknown, headers?: Record<string, string>) =>
  call(t.url, 'POST', path, { key: t.owner.apiKey, json, ...(headers ? { headers } : {}) })

function expect400(reply: { status: number; body: any }, ...fragments: string[]) {
  expect(reply.status).toBe(400)
  expect(reply.body.error.code).toBe('VALIDATION_ERROR')
  for (const f of fragments) expect(reply.body.error.message).toContain(f)
}

describe('Ethereum addresses', () => {
  it('accepts lowercase, uppercase and correct EIP-55 checksums; rejects bad ones', () => {
    // EIP-55 test vectors.
    for (const good of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
      '0x52908400098527886e0f7030069857d2e4169ee7',
      '0X52908400098527886E0F7030069857D2E4169EE7'.replace('0X', '0x'),
    ]) {
      expect(ethereumAddressProblem(good)).toBeNull()
    }
    expect(ethereumAddressProblem('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toContain('EIP-55')
    expect(ethereumAddressProblem('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae')).toContain('40 hexadecimal')
    expect(ethereumAddressProblem('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toContain('0x')
    expect(ethereumAddressProblem('0xZZaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toContain('hexadecimal')
  })
})

describe('guardian and heir bodies', () => {
  it.each(['guardian', 'heir'])('%s: required fields, types, e-mail syntax, wallet address', async (kind) => {
    const vaultId = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'enhanced' }))
      .vaultId
    const path = `/api/vault/${vaultId}/${kind}`
    expect400(await post(path, { email: 'a@example.com' }), 'name is required')
    expect400(await post(path, { name: '   ', email: 'a@example.com' }), 'name must not be empty')
    expect400(await post(path, { name: 42, email: 'a@example.com' }), 'name must be a string')
    expect400(await post(path, { name: 'A' }), 'email is required')
    expect400(await post(path, { name: 'A', email: 'not-an-address' }), 'email', 'not a valid e-mail')
    expect400(await post(path, { name: 'A', email: 'a@b' }), 'email')
    expect400(
      await post(path, { name: 'A', email: 'a@example.com', walletAddress: '0x123' }),
      'walletAddress',
    )
    expect400(
      await post(path, {
        name: 'A',
        email: 'a@example.com',
        walletAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD',
      }),
      'walletAddress',
      'EIP-55',
    )
    expect400(await post(path, { name: 'A', email: 'a@example.com', walletAddress: 7 }), 'walletAddress')
    expect400(await post(path, ['A']), 'JSON object')
    expect400(await post(path, 'null'), 'JSON object')
    const ok = await post(path, {
      name: ' Ann ',
      email: ' ann@example.com ',
      walletAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    })
    expect(ok.status).toBe(201)
    expect(ok.body.data).toMatchObject({ name: 'Ann', email: 'ann@example.com' })
  })
})

describe('request bodies', () => {
  it('malformed JSON, non-JSON content types, oversize bodies', async () => {
    const path = `/api/vault/${t.owner.vaultId}/release/config`
    expect400(await post(path, '{"trigger": "manual"'), 'not valid JSON')
    expect400(
      await post(path, 'trigger=manual', { 'content-type': 'text/plain' }),
      'Content-Type',
      'application/json',
    )
    expect400(await post(path, 'trigger=manual', { 'content-type': 'application/x-www-form-urlencoded' }))
    expect400(await post(path, '<trigger/>', { 'content-type': 'application/xml' }), 'Content-Type')
    const multipart = await call(t.url, 'POST', path, { key: t.owner.apiKey, body: uploadForm('x') })
    expect400(multipart, 'application/json')
    expect400(await post(path, { trigger: 'manual', padding: 'x'.repeat(70_000) }), 'larger than')
    // A JSON body on the upload route is not an upload.
    expect400(await post(`/api/vault/${t.owner.vaultId}/asset`, { filename: 'a.txt' }), 'multipart/form-data')
  })

  it('an empty body is no body, whatever its Content-Type', async () => {
    const id = (await t.service.admin.createVault({ account: t.owner.accountId, preset: 'standard' })).vaultId
    await post(`/api/vault/${id}/release/config`, { trigger: 'manual' })
    const start = await call(t.url, 'POST', `/api/vault/${id}/release/start`, {
      key: t.owner.apiKey,
      body: '',
      headers: { 'content-type': 'text/plain' },
    })
    expect(start.status).toBe(200)
    const cancel = await call(t.url, 'POST', `/api/vault/${id}/release/cancel`, {
      key: t.owner.apiKey,
      body: '',
    })
    expect(cancel.status).toBe(200)
  })

  it('check-in note must be a string of sane length', async () => {
    const path = `/api/vault/${t.owner.vaultId}/release/checkin`
    expect400(await post(path, { note: 5 }), 'note must be a string')
    expect400(await post(path, { note: 'x'.repeat(2001) }), 'note must be at most')
  })
})

describe('uploads', () => {
  const upload = (form: FormData) =>
    call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, { key: t.owner.apiKey, body: form })
  const tempFiles = () => readdirSync(join(t.dataDir, 'tmp'))

  it('strips directory parts from file names and rejects names that are only a path', async () => {
    const traversal = await upload(uploadForm('a', { filename: '../../etc/passwd' }))
    expect(traversal.status).toBe(201)
    expect(traversal.body.data.filename).toBe('passwd')
    const windows = await upload(uploadForm('b', { filename: 'C:\\Users\\me\\..\\secret.docx' }))
    expect(windows.body.data).toMatchObject({ filename: 'secret.docx', category: 'document' })
    expect400(await upload(uploadForm('c', { filename: '../..' })), 'filename')
    expect400(await upload(uploadForm('c', { filename: 'dir/' })), 'filename')
    expect400(await upload(uploadForm('c', { filename: 'bad\u0000name.txt' })), 'control characters')
    expect400(await upload(uploadForm('c', { filename: 'x'.repeat(300) })), 'at most 255')
    expect(tempFiles()).toEqual([])
  })

  it('requires the file part and the filename field, in any order', async () => {
    const fileFirst = new FormData()
    fileFirst.append('file', new Blob(['late fields']), 'x')
    fileFirst.append('metadata', '{"label":"late"}')
    fileFirst.append('filename', 'late.txt')
    const ok = await upload(fileFirst)
    expect(ok.status).toBe(201)
    expect(ok.body.data).toMatchObject({
      filename: 'late.txt',
      contentType: 'text/plain',
      metadata: { label: 'late' },
    })

    const noFile = new FormData()
    noFile.append('filename', 'a.txt')
    expect400(await upload(noFile), 'file part is missing')
    const noName = new FormData()
    noName.append('file', new Blob(['x']), 'x')
    expect400(await upload(noName), 'filename field is required')
    expect400(await upload(uploadForm('x', { filename: 'a.txt' }, 'document')), 'unexpected file part')
    expect400(await upload(uploadForm('x', { filename: 'a.txt', color: 'red' })), 'unknown field "color"')
    const twoFiles = uploadForm('x', { filename: 'a.txt' })
    twoFiles.append('file', new Blob(['y']), 'y')
    expect400(await upload(twoFiles), 'one file')
    expect(tempFiles()).toEqual([])
  })

  it('validates metadata and contentType', async () => {
    expect400(
      await upload(uploadForm('x', { filename: 'a.txt', metadata: '[1,2]' })),
      'metadata must be a JSON object',
    )
    expect400(
      await upload(uploadForm('x', { filename: 'a.txt', metadata: '"text"' })),
      'metadata must be a JSON object',
    )
    expect400(
      await upload(uploadForm('x', { filename: 'a.txt', metadata: 'null' })),
      'metadata must be a JSON object',
    )
    expect400(
      await upload(uploadForm('x', { filename: 'a.txt', metadata: '{bad' })),
      'metadata must be a string holding JSON',
    )
    const big = JSON.stringify({ v: 'x'.repeat(4100) })
    expect400(await upload(uploadForm('x', { filename: 'a.txt', metadata: big })), '4096 bytes')
    const fits = JSON.stringify({ v: 'x'.repeat(4000) })
    expect((await upload(uploadForm('x', { filename: 'a.txt', metadata: fits }))).status).toBe(201)
    expect400(await upload(uploadForm('x', { filename: 'a.txt', contentType: 'not a type' })), 'contentType')
    const given = await upload(uploadForm('x', { filename: 'a.txt', contentType: 'Audio/Ogg' }))
    expect(given.body.data).toMatchObject({ contentType: 'audio/ogg', category: 'audio' })
    const unknown = await upload(uploadForm('x', { filename: 'archive.xyz' }))
    expect(unknown.body.data).toMatchObject({ contentType: 'application/octet-stream', category: 'other' })
    const odt = await upload(uploadForm('x', { filename: 'letter.odt' }))
    expect(odt.body.data.category).toBe('document')
  })

  it('accepts metadata sent as an application/json part and rejects one that is not JSON', async () => {
    // FormData cannot give a text field its own Content-Type, so the body is written by hand.
    const boundary = 'jsonpart'
    const body = (json: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\na.txt\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n${json}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nbytes\r\n--${boundary}--\r\n`
    const send = (json: string) =>
      call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
        key: t.owner.apiKey,
        body: body(json),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      })
    const ok = await send('{"tag":"json part"}')
    expect(ok.status).toBe(201)
    expect(ok.body.data.metadata).toEqual({ tag: 'json part' })
    expect400(await send('{not json'), 'valid JSON')
  })

  it('rejects a non-multipart upload and a truncated multipart body', async () => {
    const boundary = 'XyZ'
    const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\na.txt\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\npartial`
    // Repeated: the truncated body fails while the staged file may still be being created, which once left
    // it behind in tmp/ now and then (the cleanup has to wait for the writer to close).
    for (let i = 0; i < 50; i++) {
      expect400(
        await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
          key: t.owner.apiKey,
          body: 'raw bytes',
          headers: { 'content-type': 'application/octet-stream' },
        }),
        'Content-Type',
      )
      const r = await call(t.url, 'POST', `/api/vault/${t.owner.vaultId}/asset`, {
        key: t.owner.apiKey,
        body: truncated,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      })
      expect400(r, 'malformed or incomplete')
      expect(tempFiles()).toEqual([])
    }
  })

  it('rejects a declared body over 5 GB before reading it', async () => {
    const { request } = await import('node:http')
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${t.url}/api/vault/${t.owner.vaultId}/asset`, {
        method: 'POST',
        headers: {
          'x-api-key': t.owner.apiKey,
          'content-type': 'multipart/form-data; boundary=b',
          'content-length': String(5_100_000_000),
        },
      })
      req.on('response', (res) => {
        let body = ''
        res.on('data', (c) => {
          body += c
        })
        res.on('end', () => resolve({ status: res.statusCode!, body }))
      })
      req.on('error', reject)
      req.write('--b\r\n')
    })
    expect(reply.status).toBe(400)
    expect(JSON.parse(reply.body).error.message).toContain('5 GB')
  })
})

describe('file size limit while streaming', () => {
  it('stops a chunked upload (no Content-Length) at the limit: 400, temp removed, no debit', async () => {
    const small = await startTestService({ maxFileBytes: 1_000_000 })
    try {
      const { apiKey, vaultId } = small.owner
      const { request } = await import('node:http')
      const boundary = 'limitboundary'
      const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${small.url}/api/vault/${vaultId}/asset`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
        })
        req.on('error', reject)
        req.on('response', (res) => {
          let body = ''
          res.on('data', (c) => {
            body += c
          })
          res.on('end', () => resolve({ status: res.statusCode!, body }))
        })
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\nbig.bin\r\n`)
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`)
        req.write(Buffer.alloc(2_000_000, 1))
        req.end(`\r\n--${boundary}--\r\n`)
      })
      expect(reply.status).toBe(400)
      expect(JSON.parse(reply.body).error.message).toContain('1000000 bytes limit')
      expect(readdirSync(join(small.dataDir, 'tmp'))).toEqual([])
      const vault = (await call(small.url, 'GET', `/api/vault/${vaultId}`, { key: apiKey })).body.data
      expect(vault).toMatchObject({ assetCount: 0, creditsBalance: 100 })
      // Exactly at the limit is fine.
      const atLimit = await call(small.url, 'POST', `/api/vault/${vaultId}/asset`, {
        key: apiKey,
        body: uploadForm(new Uint8Array(1_000_000), { filename: 'fits.bin' }),
      })
      expect(atLimit.status).toBe(201)
    } finally {
      await small.stop()
    }
  })
})
