#!/usr/bin/env python3
"""PyTorch SDPA decode attention on the shapes of `vt bench attention`, timed two ways:
eager (what a PyTorch user pays per call) and CUDA-graph replay (the kernel, launch cost
removed), so vt's graph-timed arms compare kernel against kernel in the same job.

Runs on the GPU machine (PyTorch is a reference there, never a vt dependency).
Usage: python3 tools/sdpa_decode_anchor.py [--batches 1,8,64] [--contexts 1024,4096,16384]
       [--shapes qwen3-1.7b,llama3-8b] > sdpa.json
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

SHAPES = [("qwen3-1.7b", 16, 8, 128), ("llama3-8b", 32, 8, 128), ("qwen3-32b", 64, 8, 128),
          ("d256-16q2kv", 16, 2, 256), ("gemma3-d256-8q4kv", 8, 4, 256), ("mqa-d128-8q1kv", 8, 1, 128)]
BACKENDS = ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def time_backend(backend, q, ks, vs, launches):
    with sdpa_kernel(getattr(SDPBackend, backend)):
        def call(i):
            return F.scaled_dot_product_attention(q, ks[i % len(ks)], vs[i % len(vs)], enable_gqa=True)
        for i in range(3):
            call(i)
        torch.cuda.synchronize()
        eager_us = median_ms(lambda: call(0), 20) * 1e3
        stream = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            for i in range(2):
                call(i)
            torch.cuda.synchronize()
            with torch.cuda.graph(graph, stream=stream):
                for i in range(launches):
                    call(i)
        graph.replay()
        torch.cuda.synchronize()
        graph_us = median_ms(graph.replay, 15) * 1e3 / launches
    return eager_us, graph_us


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--contexts", default="1024,4096,16384")
    ap.add_argument("--launches", type=int, default=20)
    ap.add_argument("--shapes", default="", help="comma-separated shape names (default: all)")
    args = ap.parse_args()
    wanted = set(filter(None, args.shapes.split(",")))
    unknown = wanted - {name for name, *_ in SHAPES}
    if unknown:
        sys.exit(f"sdpa_decode_anchor: unknown shapes {sorted(unknown)}; known: {[s[0] for s in SHAPES]}")
    rows = []
    for name, hq, hkv, d in SHAPES:
        if wanted and name not in wanted:
            continue
        for b in map(int, args.batches.split(",")):
            for ctx in map(int, args.contexts.split(",")):
                kv_bytes = 2 * b * hkv * ctx * d * 2
                copies = max(1, min(64, -(-512_000_000 // kv_bytes)))
                q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
                ks = [torch.randn(b, hkv, ctx, d, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
                vs = [torch.randn_like(ks[0]) for _ in range(copies)]
                best = None
                for backend in BACKENDS:
                    try:
                        eager_us, graph_us = time_backend(backend, q, ks, vs, args.launches)
                    except Exception as ex:  # a backend that does not support the shape
                        print(f"# {name} B={b} ctx={ctx} {backend}: {type(ex).__name__}", file=sys.stderr)
                        continue
                    if best is None or graph_us < best["graph_us"]:
                        best = {"backend": backend, "eager_us": eager_us, "graph_us": graph_us}
                row = {"shape": name, "batch": b, "context": ctx, "kv_MB": kv_bytes / 1e6}
                if best:
                    row.update(best)
                    row["graph_GBps"] = kv_bytes / (best["graph_us"] * 1e-6) / 1e9
                rows.append(row)
                print(f"# sdpa {name} B={b} ctx={ctx} {row}", file=sys.stderr, flush=True)
                del q, ks, vs
                torch.cuda.empty_cache()
    json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "rows": rows}, sys.stdout,
              indent=1)


if __name__ == "__main__":
    main()
