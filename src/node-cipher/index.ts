// The format library's Node accelerator: the native AES-GCM where it is built, else node:crypto's,
// worker threads for batches of chunks and for reading and encrypting files, and Node stream adapters.
// See src/vault-format/README.md.

export { nativeAeadBackend, nativeAeadStatus } from './aead-native'
export { nodeAeadBackend } from './aead-node'
export { ChunkWorkerPool, sharedChunkWorkerPool } from './chunk-worker-pool'
export { type AeadBackendName, cipherByName, fastestAeadBackend, nodeCipher } from './cipher-choice'
export {
  encryptFileInWorker,
  FILE_READ_PIECE_BYTES,
  type FileReadOptions,
  FileReadWorker,
  readFileInWorker,
  sharedFileReadWorker,
} from './file-read-worker'
export { encryptFile, readFileHere } from './file-seal-here'
export { createDecryptTransform, createEncryptTransform } from './stream-adapters'
