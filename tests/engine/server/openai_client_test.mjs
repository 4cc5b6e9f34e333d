// The official `openai` npm client against a running `vt serve`: completions, chat, streaming
// with usage, n = 2, stop strings, logprobs, models.retrieve, structured outputs (JSON Schema and
// regex), logit_bias and min_tokens, and the error cases.
// Usage: node openai_client_test.mjs BASE_URL NODE_CACHE
import assert from 'node:assert/strict';

import { OpenAI, check, client, finish, model, requireCached } from './openai_checks.mjs';

const Ajv = requireCached('ajv');
const ajv = new Ajv({ allErrors: true, strict: true });

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

const personSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 16 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    colors: { type: 'array', items: { enum: ['red', 'green', 'blue'] }, maxItems: 3 },
    home: { type: 'object', properties: { city: { type: 'string', maxLength: 16 }, floor: { type: 'integer', minimum: -3, exclusiveMaximum: 100 } },
            required: ['city', 'floor'], additionalProperties: false },
  },
  required: ['name', 'age', 'colors', 'home'],
  additionalProperties: false,
};
const personFormat = { type: 'json_schema', json_schema: { name: 'person', schema: personSchema, strict: true } };

await check('response_format json_schema: 50 seeded sampled answers parse and validate (ajv)', async () => {
  const validate = ajv.compile(personSchema);
  // The validator must be able to fail.
  assert.equal(validate({ name: 'x', age: 1.5, colors: ['pink'], home: {} }), false);
  for (let seed = 0; seed < 50; seed++) {
    const r = await client.chat.completions.create({
      model, messages: [{ role: 'user', content: 'Describe a person' }], max_tokens: 400, temperature: 1, seed,
      response_format: personFormat,
    });
    const content = r.choices[0].message.content;
    assert.equal(r.choices[0].finish_reason, 'stop', `seed ${seed}: ${content}`);
    assert.ok(validate(JSON.parse(content)), `seed ${seed}: ${content}: ${ajv.errorsText(validate.errors)}`);
  }
});

await check('response_format json_schema streamed: the chunks concatenate to valid JSON', async () => {
  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Describe a person' }], max_tokens: 400, temperature: 1, seed: 7,
    response_format: personFormat, stream: true,
  });
  let text = '';
  for await (const chunk of stream) for (const c of chunk.choices) text += c.delta.content ?? '';
  const validate = ajv.compile(personSchema);
  assert.ok(validate(JSON.parse(text)), `${text}: ${ajv.errorsText(validate.errors)}`);
});

await check('response_format json_object: a JSON object', async () => {
  // A free-form object can ramble past max_tokens (inside a string, say): such an answer is cut
  // (finish_reason length) and not checked; every one that ended is an object, and some end.
  let ended = 0;
  for (let seed = 0; seed < 8; seed++) {
    const r = await client.completions.create({
      model, prompt: 'JSON:', max_tokens: 200, temperature: 1, seed, response_format: { type: 'json_object' },
    });
    if (r.choices[0].finish_reason !== 'stop') continue;
    ended += 1;
    const value = JSON.parse(r.choices[0].text);
    assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), r.choices[0].text);
  }
  assert.ok(ended >= 2, `only ${ended} of 8 answers ended`);
});

await check('a schema vt cannot compile is a BadRequestError naming response_format', async () => {
  await assert.rejects(client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'x' }],
    response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'integer', multipleOf: 3 } } },
  }), (e) => e.status === 400 && e instanceof OpenAI.BadRequestError && e.param === 'response_format' &&
    e.message.includes('multipleOf'));
});

// Regexes as vLLM's users send them (structured_outputs.regex, and the older guided_regex) on both
// endpoints; each output must match the whole regex (JavaScript's engine, with the u flag, as the
// judge) and finish with stop. The patterns are bounded, so every answer ends within max_tokens.
const regexes = [
  '\\d{3}-\\d{4}',
  '(yes|no|maybe)',
  '[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8}){0,2}\\.',
  '(\u00e9|\u00fc|\u{1F600})[a-z]{1,5}',
  '\\{"name": "\\w{1,10}", "age": \\d{1,3}\\}',
];
const fullMatch = (re, text) => new RegExp(`^(?:${re})$`, 'u').test(text);

await check('structured_outputs.regex and guided_regex: 40 seeded sampled answers match in full', async () => {
  assert.equal(fullMatch(regexes[0], '123-45678'), false);  // the judge must be able to fail
  for (let seed = 0; seed < 8; seed++) {
    for (const [i, re] of regexes.entries()) {
      const extra = i % 2 === 0 ? { structured_outputs: { regex: re } } : { guided_regex: re };
      const r = seed % 2 === 0
        ? await client.completions.create({ model, prompt: 'Answer:', max_tokens: 64, temperature: 1, seed, ...extra })
        : await client.chat.completions.create({
          model, messages: [{ role: 'user', content: 'Answer' }], max_tokens: 64, temperature: 1, seed, ...extra,
        });
      const choice = r.choices[0];
      const text = choice.text ?? choice.message.content;
      assert.equal(choice.finish_reason, 'stop', `/${re}/ seed ${seed}: ${text}`);
      assert.ok(fullMatch(re, text), `/${re}/ seed ${seed}: '${text}'`);
    }
  }
});

await check('guided_regex streamed: the chunks concatenate to a full match', async () => {
  const stream = await client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'Name someone' }], max_tokens: 64, temperature: 1, seed: 9,
    guided_regex: regexes[2], stream: true,
  });
  let text = '';
  for await (const chunk of stream) for (const c of chunk.choices) text += c.delta.content ?? '';
  assert.ok(fullMatch(regexes[2], text), text);
});

await check('a regex vt cannot compile is a BadRequestError naming the field and the construct', async () => {
  await assert.rejects(client.completions.create({ model, prompt: 'x', structured_outputs: { regex: '(a)\\1' } }),
    (e) => e.status === 400 && e instanceof OpenAI.BadRequestError && e.param === 'structured_outputs' &&
      e.message.includes('backreference'));
  await assert.rejects(client.chat.completions.create({
    model, messages: [{ role: 'user', content: 'x' }], guided_regex: '(a{1000}){1000}',
  }), (e) => e.status === 400 && e.param === 'guided_regex' && e.message.includes('automaton states'));
});

await check('logit_bias and min_tokens through the SDK', async () => {
  // EOS (id 0) pushed to the top: the output ends at once, or after min_tokens.
  const early = await client.completions.create({ model, prompt: 'Hi', max_tokens: 20, temperature: 0, logit_bias: { 0: 100 } });
  const held = await client.completions.create({ model, prompt: 'Hi', max_tokens: 20, temperature: 0, logit_bias: { 0: 100 }, min_tokens: 5 });
  assert.ok(early.usage.completion_tokens <= 1, JSON.stringify(early.usage));
  assert.ok(held.usage.completion_tokens >= 5 && held.usage.completion_tokens <= 6, JSON.stringify(held.usage));
  assert.equal(held.choices[0].finish_reason, 'stop');
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

finish();
