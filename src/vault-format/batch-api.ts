// The library's second door, for worker threads that only seal or open batches of chunks with a
// cipher of their own (src/node-cipher): what they need and nothing else. Through index.ts a thread
// would load the whole library (the key split, the recovery words, the manifests, the pure-JS AES)
// and keep ~9 MB more for as long as it lives; through here it loads the chunk format and the batch
// loop. Both doors export the same functions: this one is a subset of index.ts.
export type { AeadBackend, ChunkAead } from './aead-backend'
export { BATCH_PLAIN, BATCH_SEALED, type BatchJob, openBatch, sealBatch } from './chunk-batch'
export { CHUNK_SIZE, chunkNonce, TAG_SIZE } from './chunked-format'
