// The browser-mode intake of dropped files: names it refuses, sizes it holds to, what it deletes and
// when, and the bridge protocol end to end over a real WebSocket (chunks acknowledged once written).
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startBrowserBridge } from '../../src/main/browser/bridge-server'
import { checkDroppedPath, DropIntake, keepDroppedFilesFor } from '../../src/main/browser/drop-intake'
import { EventHub, type HandlerTable } from '../../src/main/core/ipc/handler-table'

let root: string
let intake: DropIntake

beforeEach(async () => {
  root = join(await mkdtemp(join(tmpdir(), 'vault-drop-')), 'dropped')
  intake = new DropIntake(root, { maxFilesPerDrop: 3 })
})
afterEach(() => rm(join(root, '..'), { recursive: true, force: true }))

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

async function receive(dropId: string, relativePath: string, content: string) {
  const bytes = Buffer.from(content)
  const fileId = await intake.openFile(dropId, relativePath, bytes.length, Date.UTC(2020, 0, 2))
  await intake.write(fileId, bytes)
  await intake.closeFile(fileId)
}

describe('drop intake', () => {
  it.each(['', '../etc/passwd', '/etc/passwd', 'a//b', 'a/./b', 'a/../../b', 'bad\u0007name', 'a\\b'])(
    'refuses the name %j with a sentence',
    (name) => {
      expect(() => checkDroppedPath(name)).toThrow(/cannot be taken from the drop/)
    },
  )

  it('keeps files private, with their folders and their original time', async () => {
    const dropId = await intake.begin()
    await receive(dropId, 'Letters/old/2019.txt', 'An old letter.')
    await receive(dropId, 'notes.txt', 'Notes.')
    const paths = intake.end(dropId)
    expect(paths.sort()).toEqual([join(root, dropId, 'Letters'), join(root, dropId, 'notes.txt')])
    const file = join(root, dropId, 'Letters', 'old', '2019.txt')
    expect(await readFile(file, 'utf8')).toBe('An old letter.')
    const info = await stat(file)
    expect(info.mode & 0o777).toBe(0o600)
    expect(info.mtimeMs).toBe(Date.UTC(2020, 0, 2))
    expect((await stat(join(root, dropId))).mode & 0o777).toBe(0o700)
  })

  it('refuses more bytes than announced, and a file that ends short', async () => {
    const dropId = await intake.begin()
    const tooMany = await intake.openFile(dropId, 'a.txt', 3, 0)
    await expect(intake.write(tooMany, Buffer.from('abcd'))).rejects.toThrow(/more bytes than its size/)
    const short = await intake.openFile(dropId, 'b.txt', 10, 0)
    await intake.write(short, Buffer.from('abc'))
    await expect(intake.closeFile(short)).rejects.toThrow(/Only 3 of 10 bytes/)
    await intake.abort(dropId)
  })

  it('acknowledges each chunk with the bytes written, never with chunks still queued behind it', async () => {
    // The page sends a chunk more only per acknowledged one: an answer counting queued chunks let it run
    // ahead of the disk, and the process held ~150 MiB of a 200 MiB file (bench:drop).
    const dropId = await intake.begin()
    const fileId = await intake.openFile(dropId, 'big.bin', 12, 0)
    const answers = await Promise.all([0, 1, 2].map(() => intake.write(fileId, Buffer.from('abcd'))))
    expect(answers).toEqual([4, 8, 12])
    await intake.closeFile(fileId)
    await intake.abort(dropId)
  })

  it('refuses the same path twice and more files than a drop may hold', async () => {
    const dropId = await intake.begin()
    await receive(dropId, 'a.txt', 'a')
    await expect(intake.openFile(dropId, 'a.txt', 1, 0)).rejects.toThrow(/in the drop twice/)
    await receive(dropId, 'b.txt', 'b')
    await receive(dropId, 'c.txt', 'c')
    await expect(intake.openFile(dropId, 'd.txt', 1, 0)).rejects.toThrow(/at most 3 files/)
    await intake.abort(dropId)
  })

  it('refuses to end a drop with a file still arriving, or an empty one', async () => {
    const empty = await intake.begin()
    expect(() => intake.end(empty)).toThrow(/held no files/)
    const dropId = await intake.begin()
    await intake.openFile(dropId, 'a.txt', 5, 0)
    expect(() => intake.end(dropId)).toThrow(/not finished arriving/)
    await intake.abort(dropId)
  })

  it('abort removes everything the drop wrote; release keeps only what an upload needs', async () => {
    const aborted = await intake.begin()
    await receive(aborted, 'x/y.txt', 'y')
    await intake.openFile(aborted, 'x/z.txt', 5, 0)
    await intake.abort(aborted)
    expect(await filesUnder(root)).toEqual([])

    const dropId = await intake.begin()
    await receive(dropId, 'Photos/a.jpg', 'a')
    await receive(dropId, 'Photos/b.jpg', 'b')
    intake.end(dropId)
    const keep = join(root, dropId, 'Photos', 'b.jpg')
    await intake.release(dropId, new Set([keep]))
    expect(await filesUnder(root)).toEqual([keep])
  })

  it('deletes a file once its upload is done, and sweeps what no upload needs', async () => {
    const dropId = await intake.begin()
    await receive(dropId, 'F/a.txt', 'a')
    await receive(dropId, 'F/b.txt', 'b')
    intake.end(dropId)
    const [a, b] = [join(root, dropId, 'F', 'a.txt'), join(root, dropId, 'F', 'b.txt')]
    const items = [
      { path: a, state: 'uploading' },
      { path: b, state: 'failed' },
      { path: '/home/me/own.txt', state: 'queued' },
    ]
    let emit: (item: { path: string; state: string }) => void = () => undefined
    const kept = keepDroppedFilesFor(intake, { list: () => items }, (listener) => {
      emit = listener
    })
    // The owner's own files are never the intake's to delete.
    expect(kept.needed()).toEqual(new Set([a, b]))
    items[0]!.state = 'done'
    emit(items[0]!)
    await expect.poll(() => filesUnder(root)).toEqual([b])
    // A failed upload keeps its file for a retry until the owner clears it.
    expect(await kept.sweep()).toBe(0)
    items.splice(1, 1)
    expect(await kept.sweep()).toBe(1)
    expect(await readdir(root)).toEqual([])
  })
})

describe('the bridge carries a drop', () => {
  const handlers = {} as HandlerTable

  async function open(onIntake = intake) {
    const rendererDir = await mkdtemp(join(tmpdir(), 'vault-renderer-'))
    await writeFile(join(rendererDir, 'index.html'), '<!doctype html>')
    const bridge = await startBrowserBridge({
      rendererDir,
      handlers,
      events: new EventHub(),
      intake: { intake: onIntake, needed: () => new Set() },
    })
    const url = new URL(bridge.url)
    const socket = new WebSocket(
      `ws://127.0.0.1:${bridge.port}/bridge?token=${url.searchParams.get('token')}`,
      { headers: { origin: url.origin } },
    )
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    let nextId = 1
    const waiting = new Map<number, (value: unknown) => void>()
    const acks: Array<{ type: string; fileId: number; received?: number; message?: string }> = []
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString())
      if (message.type === 'result') waiting.get(message.id)?.(message.response)
      else acks.push(message)
    })
    const step = (op: string, fields: Record<string, unknown> = {}) =>
      new Promise<{ ok: boolean; value?: Record<string, unknown>; error?: { message: string } }>(
        (resolve) => {
          const id = nextId++
          waiting.set(id, resolve as (value: unknown) => void)
          socket.send(JSON.stringify({ type: 'intake', id, op, ...fields }))
        },
      )
    const chunk = (fileId: number, bytes: Buffer) => {
      const header = Buffer.alloc(4)
      header.writeUInt32BE(fileId)
      socket.send(Buffer.concat([header, bytes]))
    }
    return { bridge, socket, step, chunk, acks, rendererDir }
  }

  it('receives chunks in order, acknowledges each once written, and ends with the paths', async () => {
    const { bridge, step, chunk, acks } = await open()
    const begun = await step('begin')
    const dropId = begun.value!.dropId as string
    const content = Buffer.alloc(3 * 1024 * 1024 + 5)
    for (let i = 0; i < content.length; i++) content[i] = i % 251
    const opened = await step('file', {
      dropId,
      relativePath: 'Scans/big.bin',
      size: content.length,
      lastModified: 0,
    })
    const fileId = opened.value!.fileId as number
    for (let at = 0; at < content.length; at += 512 * 1024)
      chunk(fileId, content.subarray(at, at + 512 * 1024))
    await expect.poll(() => acks.at(-1)?.received).toBe(content.length)
    expect(acks.map((a) => a.received)).toEqual([...acks.map((a) => a.received)].sort((x, y) => x! - y!))
    expect((await step('close-file', { fileId })).ok).toBe(true)
    const ended = await step('end', { dropId })
    expect(ended.value!.paths).toEqual([join(root, dropId, 'Scans')])
    expect((await readFile(join(root, dropId, 'Scans', 'big.bin'))).equals(content)).toBe(true)
    await bridge.close()
  })

  it('answers a bad step with a sentence, and a closed page leaves nothing behind', async () => {
    const { bridge, socket, step, chunk } = await open()
    const dropId = (await step('begin')).value!.dropId as string
    const refused = await step('file', { dropId, relativePath: '../outside.txt', size: 1, lastModified: 0 })
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringMatching(/cannot be taken/) } })
    const fileId = (await step('file', { dropId, relativePath: 'half.txt', size: 10, lastModified: 0 }))
      .value!.fileId as number
    chunk(fileId, Buffer.from('abc'))
    await expect.poll(() => filesUnder(root)).toHaveLength(1)
    socket.close()
    await expect.poll(() => filesUnder(root)).toEqual([])
    await bridge.close()
  })
})
