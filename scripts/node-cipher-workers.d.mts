export declare const NODE_CIPHER_WORKERS: Record<'chunk-worker' | 'file-read-thread', string>
