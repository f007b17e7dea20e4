// A TCP relay that carries a service's answers at a fixed rate, as a network link would: loopback
// moves bytes as fast as two processes can copy them, which no heir's connection does. Requests pass
// as they come; what the service sends is paced by one shared budget per 10 ms, whatever the number of
// connections. Used by bench:heir --link-mbps.
import { createConnection, createServer, type Server, type Socket } from 'node:net'

const TICK_MS = 10

export interface ThrottledLink {
  url: string
  close(): Promise<void>
}

export async function throttledLink(target: URL, megabytesPerSecond: number): Promise<ThrottledLink> {
  const perTick = (megabytesPerSecond * 1e6 * TICK_MS) / 1000
  let budget = perTick
  const waiting: (() => void)[] = []
  const timer = setInterval(() => {
    budget = perTick
    while (budget > 0 && waiting.length > 0) waiting.shift()!()
  }, TICK_MS)

  /** Sends `data` to `to` within the budget, in as many ticks as it takes. */
  async function paced(to: Socket, data: Buffer): Promise<void> {
    for (let at = 0; at < data.length; ) {
      if (budget <= 0) await new Promise<void>((resolve) => waiting.push(resolve))
      const n = Math.min(data.length - at, Math.max(1, Math.floor(budget)))
      budget -= n
      if (!to.write(data.subarray(at, at + n))) await new Promise((resolve) => to.once('drain', resolve))
      at += n
    }
  }

  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    }
    client.pipe(upstream)
    upstream.on('data', (data: Buffer) => {
      upstream.pause()
      paced(client, data).then(
        () => upstream.resume(),
        () => upstream.destroy(),
      )
    })
    upstream.on('end', () => client.end())
    const cut = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', cut)
    upstream.on('error', cut)
    client.on('close', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        clearInterval(timer)
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      }),
  }
}
