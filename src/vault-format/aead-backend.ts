// AES-256-GCM behind one interface, so the library runs anywhere (nobleAeadBackend, pure JS, the
// default) and a host can plug in a faster one (src/node-cipher: node:crypto, or its native module).
// Cobblestone uses it per chunk with the message key, the chunk's nonce and empty AAD; the raw calls
// exist for the AES-GCM conformance vectors. Backends differ only in speed and where they run; all must give identical bytes.

export interface ChunkAead {
  /** Seals chunk `index`: writes ciphertext || tag (plaintext.length + 16 bytes) at out[offset]. */
  sealInto(index: number, plaintext: Uint8Array, out: Uint8Array, offset: number): void
  /** Opens chunk `index` (ciphertext || tag); null when it does not authenticate. */
  open(index: number, sealed: Uint8Array): Uint8Array | null
  /**
   * Optional: opens chunk `index` straight into out[offset] (sealed.length - 16 bytes), without a
   * buffer of its own. False when it does not authenticate, and then no plaintext is left there.
   */
  openInto?(index: number, sealed: Uint8Array, out: Uint8Array, offset: number): boolean
}

export interface AeadBackend {
  /** For reports and tests ('noble', 'node'). */
  readonly name: string
  /** Trial decryptions the failure diagnosis may spend, in bytes (pure JS is ~40x slower). */
  readonly diagnosisBudgetBytes: number
  create(key: Uint8Array, baseNonce: Uint8Array): ChunkAead
  /** AES-GCM with a 16-byte tag: returns ciphertext || tag. */
  seal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): Uint8Array
  /** Returns the plaintext, or null when ciphertext || tag does not authenticate. */
  open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): Uint8Array | null
  /**
   * Memory for output that is written in full before anyone reads it; a backend may skip zeroing
   * (node: Buffer.allocUnsafeSlow). Default: a zeroed Uint8Array.
   */
  allocate?(length: number): Uint8Array
}
