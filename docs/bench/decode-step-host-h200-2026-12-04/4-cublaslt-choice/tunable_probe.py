# Does picking among cuBLASLt's algorithms beat cuBLAS's default at decode-batch M? torch TunableOp as the probe.
import os, sys, torch
torch.manual_seed(0)
shapes = [(2048, 4096), (2048, 2048), (2048, 12288), (6144, 2048), (4096, 6144), (4096, 4096), (4096, 28672), (14336, 4096)]
ms = [16, 32, 64]
label = sys.argv[1]
if label == "tuned":
    torch.cuda.tunable.enable(True)
    torch.cuda.tunable.tuning_enable(True)
    torch.cuda.tunable.set_filename(os.path.join(sys.argv[2], "tunableop_results%d.csv"))
for k, n in shapes:
    copies = max(2, int(200e6 // (k * n * 2)) + 1)  # past the 50 MB L2
    ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) for _ in range(copies)]
    for m in ms:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        for i in range(2 * copies):
            torch.nn.functional.linear(x, ws[i % copies])
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        reps = 20 * copies
        with torch.cuda.graph(g):
            for i in range(reps):
                torch.nn.functional.linear(x, ws[i % copies])
        g.replay(); torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        best = 1e9
        for _ in range(5):
            s.record(); g.replay(); e.record(); e.synchronize()
            best = min(best, s.elapsed_time(e) * 1e3 / reps)
        gbs = k * n * 2 / best / 1e3
        print(f"{label} K={k} N={n} M={m} us={best:.2f} GB/s={gbs:.0f}", flush=True)
    del ws
if label == "tuned":
    torch.cuda.tunable.write_file()
