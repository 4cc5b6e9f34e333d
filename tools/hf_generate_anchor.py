#!/usr/bin/env python3
"""The Hugging Face transformers `generate` anchor of issue #10, run in the same job as
`vt bench decode`: eager bf16 with random weights, 32 random prompt tokens, 128 greedy new tokens,
at the given batch sizes, for the dummy shapes vt benchmarks. Prints one JSON object:
{"transformers": version, "results": [{"model", "batch", "tok_s"}]}. Needs PyTorch and
transformers (the GPU machine has both); vt itself never imports them.

Usage: python3 tools/hf_generate_anchor.py [--models qwen3-1.7b,llama3-8b] [--batches 1,8]
"""
import argparse
import json
import sys
import time

# The same shapes as vt's presets (engine/config/presets.cpp) and ../shared/anchors.
SHAPES = {
    "qwen3-1.7b": dict(model_type="qwen3", hidden_size=2048, intermediate_size=6144, num_hidden_layers=28,
                       num_attention_heads=16, num_key_value_heads=8, head_dim=128, vocab_size=151936,
                       tie_word_embeddings=True, rope_theta=1000000.0, max_position_embeddings=40960,
                       rms_norm_eps=1e-6),
    "llama3-8b": dict(model_type="llama", hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                      num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=128256,
                      tie_word_embeddings=False, rope_theta=500000.0, max_position_embeddings=8192,
                      rms_norm_eps=1e-5),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="qwen3-1.7b,llama3-8b")
    parser.add_argument("--batches", default="1,8")
    args = parser.parse_args()
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM

    results = []
    for name in args.models.split(","):
        shape = dict(SHAPES[name])
        config = AutoConfig.for_model(shape.pop("model_type"), **shape)
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
        model.eval()
        for batch in (int(b) for b in args.batches.split(",")):
            ids = torch.randint(0, config.vocab_size, (batch, 32), device="cuda")
            greedy = dict(do_sample=False, pad_token_id=0)
            with torch.no_grad():
                model.generate(ids, max_new_tokens=8, min_new_tokens=8, **greedy)
                torch.cuda.synchronize()
                start = time.time()
                out = model.generate(ids, max_new_tokens=128, min_new_tokens=128, **greedy)
                torch.cuda.synchronize()
                seconds = time.time() - start
            tok_s = batch * (out.shape[1] - 32) / seconds
            results.append({"model": name, "batch": batch, "tok_s": tok_s})
            print(f"hf generate {name} B={batch}: {tok_s:.1f} tok/s", file=sys.stderr, flush=True)
        del model
        torch.cuda.empty_cache()
    print(json.dumps({"transformers": transformers.__version__, "results": results}))


if __name__ == "__main__":
    main()
