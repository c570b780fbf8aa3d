/**
 * `node --import ./bench/no-dispatcher.js dist/cli.js serve …`: Wharf as built, but with a webhook
 * dispatcher that does nothing. A module hook answers dist/modules/webhooks/worker.js with a
 * startWebhookWorker that starts nothing, so the server writes its events as ever (in the change's
 * own transaction) but nothing numbers them or fans them out in the background: what `wharf serve
 * --no-webhooks` does from d571b47 on, for builds that do not have it. bench/outbox-cost.js uses it
 * to split the outbox's cost into the writing of events and the dispatcher's work; not for serving
 * (no webhook is ever sent, and events are numbered only when the events search is read).
 */
import { register } from 'node:module';

const hooks = `
const WORKER = /\\/dist\\/modules\\/webhooks\\/worker\\.js$/;
const IDLE = \`
export function startWebhookWorker() {
  const dispatcher = { runOnce: async () => 0, start() {}, wake() {}, stop: async () => {} };
  return { dispatcher, stop: async () => {} };
}
\`;
export async function load(url, context, nextLoad) {
  if (WORKER.test(url)) return { format: 'module', source: IDLE, shortCircuit: true };
  return nextLoad(url, context);
}
`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
