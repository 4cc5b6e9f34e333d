// What the `openai` npm client tests share: the client for BASE_URL with the SDK from NODE_CACHE
// (the command line's two arguments), named checks that report ok or FAIL and go on, and the
// exit status they add up to.
import { createRequire } from 'node:module';

const [baseURL, cache] = process.argv.slice(2);
export const requireCached = createRequire(cache + '/');
export const OpenAI = requireCached('openai');
export const client = new OpenAI({ baseURL, apiKey: 'not-needed', maxRetries: 0 });
export const model = 'fortune-qwen3-7m';
let failures = 0;

export async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}

// Ends the process: 1 when a check failed.
export function finish() {
  if (failures) {
    console.log(`${failures} check(s) failed`);
    process.exit(1);
  }
  console.log('all checks passed');
}
