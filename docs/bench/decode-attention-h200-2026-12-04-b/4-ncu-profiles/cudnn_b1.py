# cuDNN SDPA at batch 1, between cudaProfilerStart/Stop, for ncu --profile-from-start off.
import sys, torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
for name, hq, hkv, ctx in [("qwen3-1.7b", 16, 8, 4096), ("llama3-8b", 32, 8, 4096), ("qwen3-1.7b", 16, 8, 16384), ("llama3-8b", 32, 8, 16384)]:
    q = torch.randn(1, hq, 1, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, hkv, ctx, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        for _ in range(3):
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    print("profiled", name, ctx, file=sys.stderr)
