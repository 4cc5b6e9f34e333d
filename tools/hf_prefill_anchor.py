#!/usr/bin/env python3
"""The prefill anchor of issue #16, run in the same job as `vt bench decode`: one transformers bf16
forward (SDPA attention, random weights, the body without the LM head) over a batch of prompts
(one unless a run says `xB`) of each given length, for the dummy shapes vt benchmarks. Prints one
JSON object: {"transformers": version, "results": [{"model", "tokens", "batch", "seconds", "tok_s"}]}
(tok_s counts every prompt token of the batch). Needs PyTorch
and transformers (the GPU machine has both); vt itself never imports them.

Usage: python3 tools/hf_prefill_anchor.py [--runs qwen3-1.7b:8192,qwen3-1.7b:32768,llama3-8b:8000,llama3-8b:2048x8]
"""
import argparse
import json
import sys
import time

from hf_generate_anchor import SHAPES


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", default="qwen3-1.7b:8192,qwen3-1.7b:32768,llama3-8b:8000")
    args = parser.parse_args()
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM

    runs = {}
    for item in args.runs.split(","):
        name, shape = item.split(":")
        tokens, _, batch = shape.partition("x")
        runs.setdefault(name, []).append((int(tokens), int(batch or 1)))
    results = []
    for name, lengths in runs.items():
        shape = dict(SHAPES[name])
        config = AutoConfig.for_model(shape.pop("model_type"), **shape)
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16, attn_implementation="sdpa")
        model.eval()
        for tokens, batch in lengths:
            ids = torch.randint(0, config.vocab_size, (batch, tokens), device="cuda")
            with torch.no_grad():
                model.model(ids)  # warm-up: kernels chosen and loaded
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(3):
                    model.model(ids)
                torch.cuda.synchronize()
                seconds = (time.perf_counter() - start) / 3
            tok_s = batch * tokens / seconds
            results.append({"model": name, "tokens": tokens, "batch": batch, "seconds": seconds, "tok_s": tok_s})
            print(f"hf prefill {name} {batch} x {tokens} tokens: {seconds * 1e3:.1f} ms, {tok_s:.0f} tok/s",
                  file=sys.stderr, flush=True)
        del model
        torch.cuda.empty_cache()
    print(json.dumps({"transformers": transformers.__version__, "results": results}))


if __name__ == "__main__":
    main()
