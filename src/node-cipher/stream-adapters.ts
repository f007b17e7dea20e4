// Node stream adapters over the format's async iterables, with node:crypto unless the options name
// another cipher.
import { Duplex } from 'node:stream'
import {
  decryptStream,
  encryptStream,
  type FileCipherOptions,
  type FileEncryptOptions,
  type FileIdentity,
} from '../vault-format'
import { nodeCipher } from './cipher-choice'

/** Write the file's bytes, read a format-2 blob. */
export function createEncryptTransform(opts: FileEncryptOptions & { identity: FileIdentity }): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<Uint8Array>) {
    yield* encryptStream(source, { ...nodeCipher(), ...opts })
  })
}

/** Write a blob (either format), read the authenticated file bytes; errors with FileCipherError. */
export function createDecryptTransform(opts: FileCipherOptions): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<Uint8Array>) {
    yield* decryptStream(source, { ...nodeCipher(), ...opts })
  })
}
