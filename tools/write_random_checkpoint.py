#!/usr/bin/env python3
"""Writes an HF checkpoint (config.json + sharded safetensors) of one of the shapes vt benchmarks,
with transformers' random initialisation in bf16: a real file for measuring what loading costs
(host memory, time) where no downloaded checkpoint exists. Needs PyTorch and transformers.

Usage: python3 tools/write_random_checkpoint.py MODEL OUT_DIR   (MODEL: qwen3-1.7b, llama3-8b)
"""
import sys

from hf_generate_anchor import SHAPES


def main():
    name, out = sys.argv[1], sys.argv[2]
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    shape = dict(SHAPES[name])
    config = AutoConfig.for_model(shape.pop("model_type"), **shape)
    with torch.device("cuda"):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True, max_shard_size="4GB")
    print(f"wrote {name} to {out}")


if __name__ == "__main__":
    main()
