// A fake Arweave gateway on loopback: GraphQL search by tags (pages of 100, cursors, oldest first)
// and transaction data at /<tx id> with byte ranges, answering as arweave.net does until a case
// tells it how to lie. Every request is recorded.
import { createHash, randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { arweaveVaultRef, VAULT_APP_NAME } from '../../src/recovery/arweave-recovery'
import { json, serveBytes } from './fake-vault-service'
import { type Handler, RecordingListener } from './hostile-world'

export interface FakeTx {
  id: string
  /** The wallet that posted it. */
  owner: string
  /** What GET /<id> serves. */
  data: Buffer
  /** The size GraphQL declares (default: the data's length). */
  size?: number
  /** The Content-SHA256 tag: default the data's hash; null leaves the tag out. */
  sha256Hex?: string | null
  /** Block time in seconds; null: not mined yet. */
  blockSeconds?: number | null
  /** The Vault-Ref tag (default: the vault's). */
  vaultRef?: string
}

export interface FakeGatewayOptions {
  vaultId: string
  txs: FakeTx[]
  /** Sees every request first; returns true when it answered. */
  lie?: (request: IncomingMessage, response: ServerResponse, url: URL) => boolean | Promise<boolean>
}

export type FakeGateway = RecordingListener & { options: FakeGatewayOptions; graphqlCalls: () => number }

/** A well-formed transaction id: 43 base64url characters. */
export function txId(): string {
  return randomBytes(32).toString('base64url')
}

/** A wallet address (same shape as a transaction id). */
export function wallet(): string {
  return randomBytes(32).toString('base64url')
}

export function edgeOf(tx: FakeTx, vaultId: string, cursor: string) {
  const sha = tx.sha256Hex === undefined ? createHash('sha256').update(tx.data).digest('hex') : tx.sha256Hex
  return {
    cursor,
    node: {
      id: tx.id,
      owner: { address: tx.owner },
      data: { size: String(tx.size ?? tx.data.length) },
      block: tx.blockSeconds === null ? null : { timestamp: tx.blockSeconds ?? 1_700_000_000 },
      tags: [
        { name: 'App-Name', value: VAULT_APP_NAME },
        { name: 'Vault-Ref', value: tx.vaultRef ?? arweaveVaultRef(vaultId) },
        ...(sha === null ? [] : [{ name: 'Content-SHA256', value: sha }]),
      ],
    },
  }
}

export async function readJson(request: IncomingMessage): Promise<{ variables?: { after?: string } }> {
  const pieces: Buffer[] = []
  for await (const piece of request) pieces.push(piece as Buffer)
  return JSON.parse(Buffer.concat(pieces).toString('utf8') || '{}')
}

export async function startFakeGateway(options: FakeGatewayOptions): Promise<FakeGateway> {
  let graphql = 0
  const honest: Handler = async (request, response, url) => {
    if (url.pathname === '/graphql' && request.method === 'POST') graphql++
    if (options.lie && (await options.lie(request, response, url))) return
    if (url.pathname === '/graphql' && request.method === 'POST') {
      const after = Number((await readJson(request)).variables?.after ?? 0)
      const page = options.txs.slice(after, after + 100)
      return json(response, 200, {
        data: {
          transactions: {
            pageInfo: { hasNextPage: after + page.length < options.txs.length },
            edges: page.map((tx, i) => edgeOf(tx, options.vaultId, String(after + i + 1))),
          },
        },
      })
    }
    const tx = options.txs.find((t) => `/${t.id}` === url.pathname)
    if (!tx || request.method !== 'GET') {
      response.writeHead(404, { 'content-type': 'text/plain' })
      response.end('Not Found')
      return
    }
    serveBytes(request, response, tx.data)
  }
  const listener = new RecordingListener(honest)
  await listener.start()
  return Object.assign(listener, { options, graphqlCalls: () => graphql })
}
