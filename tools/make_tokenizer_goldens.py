#!/usr/bin/env python3
"""Token-exact goldens for vt's tokenizer tests, made with Hugging Face
`tokenizers` (the reference implementation).

Run where `tokenizers` is installed (the GPU machine), after
`bash ci/fetch-tokenizers.sh` has filled the cache:

    python3 tools/make_tokenizer_goldens.py --cache ~/.cache/vt/tokenizers \
        --corpus tests/fixtures/tokenizer/corpus.json --out tests/fixtures/tokenizer

It writes goldens_<name>.json for each tokenizer: per corpus entry the ids
without and with special tokens, and the decoded text (with and without
special tokens). Hex entries are bytes that may be invalid UTF-8; they are
decoded with errors="replace" first, which is what vt does to raw input.
"""
import argparse
import hashlib
import json
import os

import tokenizers
from tokenizers import Tokenizer


def corpus_texts(path):
    with open(path, encoding="utf-8") as f:
        corpus = json.load(f)
    for entry in corpus["cases"]:
        if "text" in entry:
            yield entry["text"]
        else:
            yield bytes.fromhex(entry["hex"]).decode("utf-8", errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/vt/tokenizers"))
    ap.add_argument("--corpus", default="tests/fixtures/tokenizer/corpus.json")
    ap.add_argument("--out", default="tests/fixtures/tokenizer")
    ap.add_argument("names", nargs="*", default=["qwen3", "llama3", "llama2"])
    args = ap.parse_args()
    texts = list(corpus_texts(args.corpus))
    for name in args.names:
        path = os.path.join(args.cache, name, "tokenizer.json")
        with open(path, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        tok = Tokenizer.from_file(path)
        cases = []
        for text in texts:
            ids = tok.encode(text, add_special_tokens=False).ids
            cases.append({
                "ids": ids,
                "ids_with_special": tok.encode(text, add_special_tokens=True).ids,
                "decoded": tok.decode(ids, skip_special_tokens=False),
                "decoded_skip_special": tok.decode(ids, skip_special_tokens=True),
            })
        out = {
            "tokenizer": name,
            "tokenizer_json_sha256": sha,
            "made_with": f"tokenizers {tokenizers.__version__}",
            "cases": cases,
        }
        dest = os.path.join(args.out, f"goldens_{name}.json")
        with open(dest, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
        print(f"{dest}: {len(cases)} cases")


if __name__ == "__main__":
    main()
