// The yardstick for bench:service: a bare fastify route of the same shape (GET /api/vault/:id
// answering a small JSON envelope), same fastify, in a child process like the service.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/api/vault/:id', (request, reply) => {
  reply.send({ data: { id: request.params.id }, meta: { timestamp: new Date().toISOString() } })
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
console.log(`listening on ${url}`)
