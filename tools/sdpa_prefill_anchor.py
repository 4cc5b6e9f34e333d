#!/usr/bin/env python3
"""PyTorch SDPA causal prefill attention on the shapes of `vt bench prefill-attention`'s prompt
case: one prompt of L tokens (queries and keys of the same L positions), every SDPA backend that
takes the shape, the fastest reported, timed with CUDA events in the same job as vt's run.
TFLOP/s counts the same causal work as vt's bench: 4 * head_dim * query heads * L (L + 1) / 2.

Runs on the GPU machine (PyTorch is a reference there, never a vt dependency).
Usage: python3 tools/sdpa_prefill_anchor.py [--shapes qwen3-1.7b,llama3-8b] [--lengths 2048,8192,32768]
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_decode_anchor import BACKENDS, SHAPES as DECODE_SHAPES, median_ms

SHAPES = {name: (hq, hkv, d) for name, hq, hkv, d in DECODE_SHAPES}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="qwen3-1.7b,llama3-8b")
    ap.add_argument("--lengths", default="2048,8192,32768")
    args = ap.parse_args()
    rows = []
    for name in args.shapes.split(","):
        hq, hkv, d = SHAPES[name]
        for length in map(int, args.lengths.split(",")):
            q = torch.randn(1, hq, length, d, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(1, hkv, length, d, device="cuda", dtype=torch.bfloat16)
            v = torch.randn_like(k)
            flops = 4.0 * d * hq * length * (length + 1) / 2
            best = None
            for backend in BACKENDS:
                try:
                    with sdpa_kernel(getattr(SDPBackend, backend)):
                        call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                        call()
                        torch.cuda.synchronize()
                        us = median_ms(call, 7) * 1e3
                except Exception as ex:  # a backend that does not take the shape
                    print(f"# {name} L={length} {backend}: {type(ex).__name__}", file=sys.stderr)
                    continue
                print(f"sdpa prefill {name} {length} {backend}: {us:.1f} us, {flops / us / 1e6:.1f} TFLOP/s",
                      file=sys.stderr, flush=True)
                if best is None or us < best["us"]:
                    best = {"shape": name, "context": length, "backend": backend, "us": us,
                            "TFLOPs": flops / us / 1e6}
            if best:
                rows.append(best)
    print(json.dumps({"torch": torch.__version__, "rows": rows}))


if __name__ == "__main__":
    main()
