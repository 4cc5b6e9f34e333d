// The official `openai` npm client against a running `vt serve`: completions, chat, streaming
// with usage, n = 2, stop strings, logprobs, models.retrieve and the error cases.
// Usage: node openai_client_test.mjs BASE_URL NODE_CACHE
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';

const [baseURL, cache] = process.argv.slice(2);
const OpenAI = createRequire(cache + '/')('openai');
const client = new OpenAI({ baseURL, apiKey: 'not-needed', maxRetries: 0 });
const model = 'fortune-qwen3-7m';
let failures = 0;

async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}

await check('models.list', async () => {
  const models = await client.models.list();
  assert.equal(models.data[0].id, model);
});

await check('models.retrieve', async () => {
  const m = await client.models.retrieve(model);
  assert.equal(m.id, model);
  assert.equal(m.object, 'model');
  await assert.rejects(client.models.retrieve('gpt-9'), (e) => e.status === 404 && e instanceof OpenAI.NotFoundError);
});

await check('completions.create', async () => {
  const r = await client.completions.create({ model, prompt: 'The meaning of life is', max_tokens: 12, temperature: 0 });
  assert.equal(r.object, 'text_completion');
  assert.ok(r.choices[0].text.length > 0);
  assert.ok(['stop', 'length'].includes(r.choices[0].finish_reason));
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  assert.ok(r.system_fingerprint.startsWith('vt-'));
});

await check('chat.completions.create', async () => {
  const r = await client.chat.completions.create({
    model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me a joke' }], max_tokens: 16,
  });
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(typeof r.choices[0].message.content, 'string');
});

await check('streaming chat with usage', async () => {
  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 10, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let events = 0;
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      events += 1;
      text += c.delta.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  assert.equal(usage.completion_tokens, 10);
  assert.equal(events, 11);  // the role chunk, then one per token
  assert.equal(finish, 'length');
  assert.ok(text.length > 0);
});

await check('n = 2 with a seed', async () => {
  const ask = () => client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Tell me a joke' }], max_tokens: 12, n: 2, seed: 3, temperature: 1.0,
  });
  const [a, b] = [await ask(), await ask()];
  assert.equal(a.choices.length, 2);
  const one = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me a joke' }], max_tokens: 1 });
  assert.equal(a.usage.prompt_tokens, one.usage.prompt_tokens);  // the prompt counts once, not once per choice
  assert.deepEqual(a.choices.map((c) => c.message.content), b.choices.map((c) => c.message.content));
});

await check('stop strings', async () => {
  const full = await client.completions.create({ model, prompt: 'The meaning of life is', max_tokens: 20, temperature: 0, ignore_eos: true });
  const text = full.choices[0].text;
  const stop = text.slice(4, 9);
  const cut = await client.completions.create({ model, prompt: 'The meaning of life is', max_tokens: 20, temperature: 0, ignore_eos: true, stop: [stop] });
  assert.equal(cut.choices[0].finish_reason, 'stop');
  assert.equal(cut.choices[0].text, text.slice(0, text.indexOf(stop)));
});

await check('logprobs', async () => {
  const r = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 5, ignore_eos: true, logprobs: true, top_logprobs: 2,
  });
  const content = r.choices[0].logprobs.content;
  assert.equal(content.length, 5);
  assert.equal(content[0].top_logprobs.length, 2);
  assert.ok(content[0].logprob <= 0);
});

await check('unknown model is a NotFoundError', async () => {
  await assert.rejects(client.completions.create({ model: 'gpt-9', prompt: 'x' }), (e) => e.status === 404 && e instanceof OpenAI.NotFoundError);
});

await check('max_tokens 0 is a BadRequestError naming the field', async () => {
  await assert.rejects(client.completions.create({ model, prompt: 'x', max_tokens: 0 }),
    (e) => e.status === 400 && e instanceof OpenAI.BadRequestError && e.param === 'max_tokens');
});

await check('empty messages is a BadRequestError', async () => {
  await assert.rejects(client.chat.completions.create({ model, messages: [] }), (e) => e.status === 400);
});

if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('all checks passed');
