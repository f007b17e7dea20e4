// The format library's Node accelerator: node:crypto AES-GCM, worker threads for batches of chunks
// and for reading and encrypting files, and Node stream adapters. See src/vault-format/README.md.

export { nodeAeadBackend } from './aead-node'
export { ChunkWorkerPool, sharedChunkWorkerPool } from './chunk-worker-pool'
export { type AeadBackendName, cipherByName, nodeCipher } from './cipher-choice'
export {
  encryptFileInWorker,
  FILE_READ_PIECE_BYTES,
  type FileReadOptions,
  FileReadWorker,
  readFileInWorker,
  sharedFileReadWorker,
} from './file-read-worker'
export { createDecryptTransform, createEncryptTransform } from './stream-adapters'
