// Tool calling through the official `openai` npm client against `vt serve --tool-call-parser
// hermes` on the embedded model. Its free output is gibberish, so every call checked here was
// forced by the grammar of tool_choice "required" or a named function: the arguments must
// validate (with ajv) against the function's schema, the streamed deltas the SDK reassembles must
// equal the whole response, and a conversation with the call and its result must go back in.
// Usage: node openai_tools_test.mjs BASE_URL NODE_CACHE
import assert from 'node:assert/strict';

import { OpenAI, check, client, finish, model, requireCached } from './openai_checks.mjs';

const Ajv = requireCached('ajv');
const ajv = new Ajv({ allErrors: true, strict: true });

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather of a city',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', maxLength: 12 },
          unit: { enum: ['celsius', 'fahrenheit'] },
          days: { type: 'integer' },
          where: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } },
                   required: ['lat', 'lon'], additionalProperties: false },
        },
        required: ['city', 'unit', 'where'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'add_tags',
      parameters: {
        type: 'object',
        properties: { tags: { type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 1, maxItems: 3 } },
        required: ['tags'],
        additionalProperties: false,
      },
    },
  },
  { type: 'function', function: { name: 'now' } },
];
const validators = Object.fromEntries(tools.map((t) => [t.function.name,
  ajv.compile(t.function.parameters ?? { type: 'object', additionalProperties: false })]));
const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];

// Every call names a tool and carries arguments that validate against its schema.
function assertValidCalls(message, context) {
  assert.ok(Array.isArray(message.tool_calls) && message.tool_calls.length > 0, `${context}: no tool_calls`);
  for (const call of message.tool_calls) {
    assert.equal(call.type, 'function', context);
    assert.match(call.id, /^call_[A-Za-z0-9]{24}$/, context);
    const validate = validators[call.function.name];
    assert.ok(validate, `${context}: unknown function ${call.function.name}`);
    const args = JSON.parse(call.function.arguments);
    assert.ok(validate(args), `${context}: ${call.function.arguments}: ${ajv.errorsText(validate.errors)}`);
  }
}

await check('the validator can fail', async () => {
  assert.equal(validators.get_weather({ city: 'Paris', unit: 'kelvin', where: { lat: 1, lon: 2 } }), false);
  assert.equal(validators.now({ x: 1 }), false);
});

await check('tool_choice "required": 12 sampled answers are valid calls', async () => {
  for (let seed = 0; seed < 12; seed++) {
    const r = await client.chat.completions.create({
      model, messages, tools, tool_choice: 'required', parallel_tool_calls: false, temperature: 1, seed, max_tokens: 200,
    });
    const choice = r.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls', `seed ${seed}: ${JSON.stringify(choice.message)}`);
    assert.equal(choice.message.content, null, `seed ${seed}`);
    assert.equal(choice.message.tool_calls.length, 1, `seed ${seed}: parallel_tool_calls false`);
    assertValidCalls(choice.message, `seed ${seed}`);
  }
});

await check('a named function is the one called, with valid arguments', async () => {
  for (const name of ['get_weather', 'add_tags', 'now']) {
    for (let seed = 0; seed < 3; seed++) {
      const r = await client.chat.completions.create({
        model, messages, tools, tool_choice: { type: 'function', function: { name } }, parallel_tool_calls: false,
        temperature: 1, seed, max_tokens: 200,
      });
      const message = r.choices[0].message;
      assert.equal(r.choices[0].finish_reason, 'tool_calls', JSON.stringify(message));
      assertValidCalls(message, `${name} seed ${seed}`);
      assert.deepEqual(message.tool_calls.map((c) => c.function.name), [name]);
    }
  }
});

await check('parallel calls: every call the model makes is valid', async () => {
  const r = await client.chat.completions.create({
    model, messages, tools, tool_choice: 'required', temperature: 0, max_tokens: 200,
  });
  const choice = r.choices[0];
  // A model that keeps calling may run out of tokens; the calls it finished are still whole.
  if (choice.finish_reason === 'tool_calls') assertValidCalls(choice.message, 'parallel');
  else assert.equal(choice.finish_reason, 'length');
});

await check('streamed tool-call deltas reassembled by the SDK equal the whole response', async () => {
  for (const tool_choice of ['required', { type: 'function', function: { name: 'add_tags' } }]) {
    const request = { model, messages, tools, tool_choice, parallel_tool_calls: false, temperature: 0, seed: 11, max_tokens: 200 };
    const whole = await client.chat.completions.create(request);
    const stream = client.beta.chat.completions.stream(request);
    let fragments = 0;
    for await (const chunk of stream) fragments += chunk.choices.filter((c) => c.delta.tool_calls).length;
    const streamed = await stream.finalChatCompletion();
    const a = whole.choices[0], b = streamed.choices[0];
    assert.equal(b.finish_reason, a.finish_reason);
    assert.equal(b.message.content, a.message.content);
    const calls = (m) => m.tool_calls.map((c) => [c.type, c.function.name, c.function.arguments]);
    assert.deepEqual(calls(b.message), calls(a.message));
    assert.ok(fragments >= 2, `the call came in ${fragments} fragment(s), not name and arguments`);
    assertValidCalls(b.message, 'streamed');
  }
});

await check('a tool result goes back through the template', async () => {
  const first = await client.chat.completions.create({
    model, messages, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, temperature: 0,
    parallel_tool_calls: false, max_tokens: 200,
  });
  const call = first.choices[0].message.tool_calls[0];
  const r = await client.chat.completions.create({
    model, tools, max_tokens: 8, temperature: 0,
    messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"sky": "clear"}' }],
  });
  assert.ok(['stop', 'length', 'tool_calls'].includes(r.choices[0].finish_reason));
  assert.ok(r.usage.prompt_tokens > first.usage.prompt_tokens);
});

await check('tool_choice "auto": free text comes back as content, whole and streamed', async () => {
  const r = await client.chat.completions.create({ model, messages, tools, temperature: 0, max_tokens: 16 });
  assert.equal(typeof r.choices[0].message.content, 'string');
  assert.ok(['stop', 'length', 'tool_calls'].includes(r.choices[0].finish_reason));
  const stream = client.beta.chat.completions.stream({ model, messages, tools, temperature: 0, max_tokens: 16 });
  const streamed = await stream.finalChatCompletion();
  assert.equal(streamed.choices[0].message.content, r.choices[0].message.content);
});

await check('an unknown named function is a BadRequestError naming it', async () => {
  await assert.rejects(client.chat.completions.create({
    model, messages, tools, tool_choice: { type: 'function', function: { name: 'launch_rocket' } },
  }), (e) => e.status === 400 && e instanceof OpenAI.BadRequestError && e.param === 'tool_choice' &&
    e.message.includes('launch_rocket'));
});

finish();
