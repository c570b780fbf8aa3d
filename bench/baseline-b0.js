/**
 * Baseline B0: a bare Fastify 5 app with one POST route that answers a small JSON body. It is the
 * ceiling for a read: HTTP parsing, JSON body parsing and a small reply, nothing else.
 *
 * Usage: node bench/baseline-b0.js <port>
 */
import Fastify from 'fastify';

const port = Number(process.argv[2]);
const app = Fastify({ logger: false });

app.post('/b0', async () => ({ Items: [{ itemID: 'B0-1', Status: 'Unchanged' }] }));

await app.listen({ port, host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
