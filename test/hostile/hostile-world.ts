// What every hostile-source case checks around the code under attack: a folder tree with the heir's
// output folder deep inside it, a sentinel file beside it and an heir's own file already in it,
// snapshotted before and after (nothing may appear outside the output folder, nothing that was there
// may change or vanish, no link may appear); and loopback listeners that record every request they
// get, so a case can prove where a key or an access code went.
import { createHash } from 'node:crypto'
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { expect } from 'vitest'

export interface World {
  root: string
  /** The heir's output folder, six levels below root so that "../../x" written from inside it stays in root. */
  outDir: string
  /** A file beside the output folder's parents: must never change. */
  sentinel: string
  /** The heir's own file, in the output folder before the run: must never change. */
  existing: string
  remove: () => Promise<void>
}

export async function makeWorld(): Promise<World> {
  const root = await mkdtemp(join(tmpdir(), 'vault-hostile-'))
  const outDir = join(root, 'home', 'heir', 'docs', 'vault', 'recovered', 'out')
  await mkdir(outDir, { recursive: true })
  const sentinel = join(root, 'home', 'sentinel.txt')
  await writeFile(sentinel, 'the heir keeps this file\n')
  await writeFile(
    join(root, 'home', 'heir', 'docs', 'vault', 'recovered', 'notes.txt'),
    'beside the output\n',
  )
  const existing = join(outDir, 'existing.txt')
  await writeFile(existing, 'already in the output folder before the run\n')
  return { root, outDir, sentinel, existing, remove: () => rm(root, { recursive: true, force: true }) }
}

/** Relative path -> what it is: a file's size and SHA-256, a folder, or a link and its target. */
export type Snapshot = Map<string, string>

export async function snapshot(world: World): Promise<Snapshot> {
  const shot: Snapshot = new Map()
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const path = join(dir, name)
      const rel = relative(world.root, path).split(sep).join('/')
      const info = await lstat(path)
      if (info.isSymbolicLink()) shot.set(rel, `link -> ${await readlink(path)}`)
      else if (info.isDirectory()) {
        shot.set(rel, 'folder')
        await walk(path)
      } else {
        const sha = createHash('sha256')
          .update(await readFile(path))
          .digest('hex')
        shot.set(rel, `file ${info.size} ${sha}`)
      }
    }
  }
  await walk(world.root)
  return shot
}

/**
 * Nothing outside the output folder appeared, changed or vanished; nothing that was in it changed or
 * vanished; no link appeared anywhere. Returns the paths that appeared inside the output folder.
 */
export function expectContained(world: World, before: Snapshot, after: Snapshot): string[] {
  const out = `${relative(world.root, world.outDir).split(sep).join('/')}/`
  for (const [path, what] of before) expect(after.get(path), `${path} changed or vanished`).toBe(what)
  const appeared = [...after.keys()].filter((path) => !before.has(path))
  const outside = appeared.filter((path) => !path.startsWith(out))
  expect(outside, 'files written outside the output folder').toEqual([])
  const links = appeared.filter((path) => after.get(path)!.startsWith('link'))
  expect(links, 'links created').toEqual([])
  return appeared.map((path) => path.slice(out.length))
}

/** Runs `attack` between two snapshots of the world and checks containment; returns its result and what appeared. */
export async function contained<T>(
  world: World,
  attack: () => Promise<T>,
): Promise<{ result: T; appeared: string[] }> {
  const before = await snapshot(world)
  const result = await attack()
  const after = await snapshot(world)
  return { result, appeared: expectContained(world, before, after) }
}

export interface RecordedRequest {
  method: string
  /** Path and query as received. */
  url: string
  headers: IncomingHttpHeaders
}

export type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => unknown

/** A loopback HTTP listener that records every request before `handle` answers it. */
export class RecordingListener {
  readonly requests: RecordedRequest[] = []
  #server: Server | undefined
  #origin = ''

  constructor(private readonly handle: Handler) {}

  get origin(): string {
    return this.#origin
  }

  async start(): Promise<this> {
    this.#server = createServer((request, response) => {
      this.requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers })
      const url = new URL(request.url ?? '/', this.#origin)
      Promise.resolve(this.handle(request, response, url)).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' })
        response.end(String(error))
      })
    })
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    this.#origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
    return this
  }

  /** Ends every open response too: endless and dripping answers must not outlive their case. */
  async stop(): Promise<void> {
    if (!this.#server) return
    this.#server.closeAllConnections()
    await new Promise<void>((resolve) => this.#server!.close(() => resolve()))
  }
}

/**
 * Another host (another origin on loopback) that a lying source redirects to. It answers like a
 * friendly service would, so a client that followed the redirect would carry on and be seen here.
 */
export function startElsewhere(): Promise<RecordingListener> {
  return new RecordingListener((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ data: [], meta: { total: 0 } }))
  }).start()
}

/** The secret appears in no request these listeners received (headers, path or query). */
export function expectNeverSent(secret: string, ...listeners: RecordingListener[]): void {
  for (const listener of listeners) {
    for (const request of listener.requests) {
      expect(JSON.stringify(request), `sent to ${listener.origin}`).not.toContain(secret)
    }
  }
}

/** Resolves after `ms`; for drips and stalls. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
