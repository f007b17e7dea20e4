// The recovery page's writers against a stand-in folder (the File System Access API's shape): a new
// file only (one there, or a folder of its name, is in the way), kept on commit, and on failure its
// swap file aborted, its name removed and the folders made for it too; downloads refuse a file above
// the stated limit and keep each file's bytes whole.
import { describe, expect, it } from 'vitest'
import { PageWriteError } from '../../src/recovery-page/page-recovery'
import { PAGE_TEXT } from '../../src/recovery-page/page-text'
import {
  canWriteFolders,
  type DirectoryHandleLike,
  downloadWriter,
  folderWriter,
} from '../../src/recovery-page/page-writer'

const t = PAGE_TEXT.en
const failure = (name: string) => Object.assign(new Error(name), { name })

/** A folder tree in memory: files hold their committed bytes; a writable's bytes are in `swap` until close. */
function memoryFolder() {
  type Node = Map<string, Node | Uint8Array>
  const root: Node = new Map()
  const log: string[] = []
  const handle = (node: Node, name: string): DirectoryHandleLike => ({
    name,
    async getDirectoryHandle(child, options) {
      let found = node.get(child)
      if (found instanceof Uint8Array) throw failure('TypeMismatchError')
      if (!found) {
        if (!options?.create) throw failure('NotFoundError')
        found = new Map()
        node.set(child, found)
        log.push(`mkdir ${child}`)
      }
      return handle(found, child)
    },
    async getFileHandle(child, options) {
      const found = node.get(child)
      if (found instanceof Map) throw failure('TypeMismatchError')
      if (!found) {
        if (!options?.create) throw failure('NotFoundError')
        node.set(child, new Uint8Array())
      }
      return {
        async createWritable() {
          const swap: Uint8Array[] = []
          return {
            write: async (data) => {
              swap.push(data.slice())
            },
            close: async () => {
              node.set(child, Buffer.concat(swap))
            },
            abort: async () => {
              log.push(`abort ${child}`)
            },
          }
        },
      }
    },
    async removeEntry(child) {
      const found = node.get(child)
      if (found instanceof Map && found.size > 0) throw failure('InvalidModificationError')
      node.delete(child)
      log.push(`remove ${child}`)
    },
  })
  const at = (path: string): Node | Uint8Array | undefined =>
    path
      .split('/')
      .reduce<Node | Uint8Array | undefined>((n, s) => (n instanceof Map ? n.get(s) : undefined), root)
  return { root: handle(root, 'Recovered'), at, log }
}

describe('folderWriter', () => {
  it('writes a new file, kept on commit', async () => {
    const folder = memoryFolder()
    const sink = await folderWriter(folder.root, t).create(['a', 'b', 'c.txt'], 3)
    await sink.write(new Uint8Array([1, 2]))
    await sink.write(new Uint8Array([3]))
    await sink.commit()
    expect(Buffer.from(folder.at('a/b/c.txt') as Uint8Array)).toEqual(Buffer.from([1, 2, 3]))
  })

  it('a failed file leaves nothing: its swap file aborted, its name and the folders made for it removed', async () => {
    const folder = memoryFolder()
    await (await folderWriter(folder.root, t).create(['keep', 'x.txt'], 1)).commit()
    const sink = await folderWriter(folder.root, t).create(['keep', 'new', 'deeper', 'y.txt'], 9)
    await sink.write(new Uint8Array(5))
    await sink.discard()
    expect(folder.at('keep/new')).toBeUndefined()
    expect(folder.at('keep/x.txt')).toBeInstanceOf(Uint8Array)
    expect(folder.log.slice(-4)).toEqual(['abort y.txt', 'remove y.txt', 'remove deeper', 'remove new'])
  })

  it('never replaces: a file there, or a file where a folder goes, is in the way', async () => {
    const folder = memoryFolder()
    await (await folderWriter(folder.root, t).create(['same.txt'], 0)).commit()
    const writer = folderWriter(folder.root, t)
    await expect(writer.create(['same.txt'], 1)).rejects.toEqual(
      new PageWriteError('exists', t.inTheWay('same.txt')),
    )
    await expect(writer.create(['same.txt', 'inner.txt'], 1)).rejects.toMatchObject({ reason: 'exists' })
  })

  it('says whether this browser can write folders', () => {
    expect(canWriteFolders({})).toBe(false)
    expect(canWriteFolders({ showDirectoryPicker: () => {} })).toBe(true)
  })
})

describe('downloadWriter', () => {
  it('refuses a file above the stated limit, before reading it', async () => {
    await expect(downloadWriter(t, 1000).create(['big.bin'], 1001)).rejects.toEqual(
      new PageWriteError('too-large', t.tooLarge('big.bin', 1000)),
    )
  })

  it('keeps each piece as it was when written (pieces may be reused after), named with its folders', async () => {
    const sink = await downloadWriter(t, 1000).create(['photos', 'a.jpg'], 4)
    const piece = new Uint8Array([1, 2])
    await sink.write(piece)
    piece.set([9, 9])
    await sink.write(new Uint8Array([3, 4]))
    const { download } = await sink.commit()
    expect(download?.name).toBe('photos - a.jpg')
    const bytes = new Uint8Array(await (await fetch(download!.url)).arrayBuffer())
    expect([...bytes]).toEqual([1, 2, 3, 4])
  })
})
