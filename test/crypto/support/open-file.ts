// openEncryptedFile for tests that expect a file blob (not a bundle): the union narrowed, or a failure.
import type { ByteSource } from '../../../src/vault-format/byte-queue'
import {
  type FileCipherOptions,
  type OpenedFile,
  openEncryptedFile,
} from '../../../src/vault-format/file-cipher'

export async function openFileBlob(source: ByteSource, opts: FileCipherOptions): Promise<OpenedFile> {
  const opened = await openEncryptedFile(source, opts)
  if (opened.kind === 'file') return opened
  await opened.entries.return?.()
  throw new Error(`Expected a file blob, got a bundle of ${opened.files.length} files`)
}
