/**
 * A webhook receiver in the bench's process (node:http): answers 204 as soon as a request's body
 * has arrived and counts the distinct `webhook-id`s it got, and the repeats.
 */
import { createServer } from 'node:http';

/** Starts the receiver on a free port of 127.0.0.1; answers { url, delivered(), repeats(), close() }. */
export function startWebhookReceiver() {
  const seen = new Set();
  let repeats = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(204);
      response.end();
      const id = request.headers['webhook-id'];
      if (seen.has(id)) repeats += 1;
      else seen.add(id);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/hook`,
        delivered: () => seen.size,
        repeats: () => repeats,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
