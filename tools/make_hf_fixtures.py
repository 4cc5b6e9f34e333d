#!/usr/bin/env python3
"""Correctness fixtures for vt's CPU engine, computed by transformers.

For each supported architecture this builds a tiny random-weight model,
rounds its weights to bf16 (so the saved bf16 checkpoint holds exactly the
weights the reference used), and records, computed in float32 with eager
attention and no KV cache:
  - per prompt, the greedy continuation and the top-2 logit margin of each step;
  - per prompt, the logits of the first generated step.
Each case is written to tests/fixtures/hf/<case>/ as config.json,
model.safetensors (bf16) and expected.json; tests/engine/hf_fixture_test.cpp
checks vt against them (token-exact up to the first step whose margin is
below 1e-3, logits within 1e-4 relative).

Run where torch and transformers are installed (the GPU machine; a CPU is
enough, the models are tiny):

    python3 tools/make_hf_fixtures.py --out tests/fixtures/hf
"""
import argparse
import json
import math
import os

import torch
import transformers
from transformers import (AutoModelForCausalLM, LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config)

VOCAB = 512
STEPS = 12
LLAMA3_ROPE = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_position_embeddings": 64}


def base(**kw):
    d = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024, rms_norm_eps=1e-6,
             tie_word_embeddings=False, hidden_act="silu", bos_token_id=1, eos_token_id=2)
    d.update(kw)
    return d


def with_llama3_rope(cls, theta, **kw):
    """rope_scaling on transformers 4, rope_parameters on 5: use whichever sticks."""
    cfg = cls(**base(rope_theta=theta, rope_scaling=dict(LLAMA3_ROPE), **kw))
    params = getattr(cfg, "rope_parameters", None) or getattr(cfg, "rope_scaling", None) or {}
    if params.get("rope_type", params.get("type")) != "llama3":
        cfg = cls(**base(rope_parameters=dict(LLAMA3_ROPE, rope_theta=theta), **kw))
    return cfg


def cases():
    return {
        "llama": (LlamaConfig(**base(rope_theta=10000.0)), [7, 33, 90]),
        "llama3_rope": (with_llama3_rope(LlamaConfig, 500000.0), [300, 41]),
        "mistral": (MistralConfig(**base(rope_theta=10000.0, sliding_window=None)), [12, 57]),
        "qwen2_bias_tied": (Qwen2Config(**base(rope_theta=1000000.0, tie_word_embeddings=True,
                                               use_sliding_window=False)), [9, 64]),
        "qwen3_hd128": (Qwen3Config(**base(rope_theta=1000000.0, head_dim=128, num_attention_heads=4,
                                           num_key_value_heads=2, use_sliding_window=False)), [5, 70]),
        "qwen3_hd256_tied": (Qwen3Config(**base(rope_theta=1000000.0, head_dim=256, num_attention_heads=2,
                                                num_key_value_heads=1, tie_word_embeddings=True,
                                                use_sliding_window=False)), [11, 48]),
    }


@torch.no_grad()
def randomize(model, gen):
    """Weights of unit-variance outputs (not HF's 0.02 init, whose logits are
    nearly flat and whose greedy margins would all be tiny), rounded to bf16."""
    for name, p in model.named_parameters():
        if p.dim() == 2 and "embed" in name:
            v = torch.rand(p.shape, generator=gen) * 2 - 1
        elif p.dim() == 2:
            bound = math.sqrt(3.0 / p.shape[1])
            v = (torch.rand(p.shape, generator=gen) * 2 - 1) * bound
        elif name.endswith("bias"):
            v = (torch.rand(p.shape, generator=gen) * 2 - 1) * 0.1
        else:  # norms
            v = 1.0 + (torch.rand(p.shape, generator=gen) * 2 - 1) * 0.1
        p.copy_(v.to(torch.bfloat16).to(torch.float32))


@torch.no_grad()
def run_case(name, config, prompt_lens, out_dir, seed):
    gen = torch.Generator().manual_seed(seed)
    config._attn_implementation = "eager"
    model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.float32)
    if hasattr(model.config, "_attn_implementation"):
        model.config._attn_implementation = "eager"
    model.eval()
    randomize(model, gen)
    if config.tie_word_embeddings:
        model.tie_weights()
    prompts, greedy, margins, first_logits = [], [], [], []
    for n in prompt_lens:
        ids = torch.randint(3, VOCAB, (n,), generator=gen).tolist()
        seq = list(ids)
        out, m = [], []
        for step in range(STEPS):
            logits = model(torch.tensor([seq]), use_cache=False).logits[0, -1].float()
            if step == 0:
                first_logits.append([float(x) for x in logits])
            top = torch.topk(logits, 2)
            out.append(int(top.indices[0]))
            m.append(float(top.values[0] - top.values[1]))
            seq.append(out[-1])
        prompts.append(ids)
        greedy.append(out)
        margins.append(m)
    dest = os.path.join(out_dir, name)
    os.makedirs(dest, exist_ok=True)
    model.to(torch.bfloat16).save_pretrained(dest, safe_serialization=True)
    for extra in ("generation_config.json",):
        if os.path.exists(os.path.join(dest, extra)):
            os.remove(os.path.join(dest, extra))
    with open(os.path.join(dest, "expected.json"), "w") as f:
        json.dump({"made_with": f"transformers {transformers.__version__}, torch {torch.__version__}",
                   "compute": "float32, eager attention, no KV cache, weights exactly bf16",
                   "prompts": prompts, "greedy": greedy, "margins": margins,
                   "first_step_logits": first_logits}, f)
    print(f"{dest}: prompts {prompt_lens}, min margin {min(min(x) for x in margins):.4g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/hf")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    for i, (name, (config, lens)) in enumerate(cases().items()):
        run_case(name, config, lens, args.out, args.seed + i)


if __name__ == "__main__":
    main()
