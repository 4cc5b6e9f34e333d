// Reasoning through the official `openai` npm client against `vt serve` on the embedded model's
// weights behind a Qwen3-style template whose generation prompt opens a <think> block (closed
// when chat_template_kwargs.enable_thinking is false): the reasoning parser is recognised from
// the template, the output inside the block comes back as reasoning_content (streamed as
// delta.reasoning_content, which the SDK does not join, so this test does), and a structured
// output constrains the answer after the block.
// Usage: node openai_reasoning_test.mjs BASE_URL NODE_CACHE
import assert from 'node:assert/strict';

import { check, client, finish, model, requireCached } from './openai_checks.mjs';

const Ajv = requireCached('ajv');
const messages = [{ role: 'user', content: 'Why is the sky blue?' }];

async function streamed(request) {
  const stream = await client.chat.completions.create({ ...request, stream: true });
  let reasoning = '', content = '', finish = null;
  for await (const chunk of stream) {
    for (const c of chunk.choices) {
      reasoning += c.delta.reasoning_content ?? '';
      content += c.delta.content ?? '';
      finish = c.finish_reason ?? finish;
    }
  }
  return { reasoning, content, finish };
}

await check('the output inside the prompt-opened block is reasoning_content, whole and streamed', async () => {
  const request = { model, messages, max_tokens: 24, temperature: 0, ignore_eos: true };
  const r = await client.chat.completions.create(request);
  const m = r.choices[0].message;
  assert.equal(typeof m.reasoning_content, 'string');
  assert.ok(m.reasoning_content.length > 0);
  const s = await streamed(request);
  assert.equal(s.reasoning, m.reasoning_content);
  assert.equal(s.content, m.content ?? '');
  assert.equal(s.finish, r.choices[0].finish_reason);
});

await check('enable_thinking false: no reasoning, all content', async () => {
  const r = await client.chat.completions.create({
    model, messages, max_tokens: 12, temperature: 0, ignore_eos: true, chat_template_kwargs: { enable_thinking: false },
  });
  assert.equal(r.choices[0].message.reasoning_content, null);
  assert.equal(typeof r.choices[0].message.content, 'string');
  assert.ok(r.choices[0].message.content.length > 0);
});

await check('a json_schema answer after the reasoning validates', async () => {
  const schema = { type: 'object', properties: { answer: { type: 'string', maxLength: 20 } }, required: ['answer'],
                   additionalProperties: false };
  const validate = new Ajv().compile(schema);
  const response_format = { type: 'json_schema', json_schema: { name: 'a', schema, strict: true } };
  // With the block closed by the prompt the whole output is the answer.
  for (let seed = 0; seed < 5; seed++) {
    const r = await client.chat.completions.create({
      model, messages, max_tokens: 100, temperature: 1, seed, response_format,
      chat_template_kwargs: { enable_thinking: false },
    });
    const m = r.choices[0].message;
    assert.equal(r.choices[0].finish_reason, 'stop', m.content);
    assert.ok(validate(JSON.parse(m.content)), m.content);
  }
  // With the block open the model reasons freely first; whatever answer it reaches validates.
  const r = await client.chat.completions.create({ model, messages, max_tokens: 100, temperature: 0, response_format });
  const m = r.choices[0].message;
  assert.ok(m.reasoning_content.length > 0);
  if (r.choices[0].finish_reason === 'stop') assert.ok(validate(JSON.parse(m.content)), m.content);
});

finish();
