// Import the entry points named on the command line in a fresh process and
// print every module file that got loaded: ES modules as the resolve hook saw
// them, CommonJS ones from the require cache (`createRequire` loads skip the
// ES module hooks).
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const urls = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => urls.push(url));
port1.unref();
register('./resolve-hook.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });

for (const specifier of process.argv.slice(2)) await import(specifier);
// Let the hook thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 100));
const cjs = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify({ esm: urls, cjs }));
