# Compares the skinny GEMM kernels' PTX of two builds, names and debug lines left out.
import re, sys, difflib
def entries(path):
    out = {}
    for e in re.split(r'\n(?=\.visible \.entry|\.entry|\.weak \.entry)', open(path).read()):
        m = re.search(r'\.entry (\S+)\(', e)
        if not m or 'SkinnyGemmKernel' not in m.group(1):
            continue
        body = e.replace(m.group(1), 'K')
        body = [l for l in body.splitlines() if not l.strip().startswith(('.loc', '.file', '.b8')) and 'partial' not in l]
        body = [re.sub(r'\$L__BB\d+_', '$L__BB_', re.sub(r'\$L__info_string\d+', 'S', l)) for l in body]
        body = [l for l in body if l.strip() != 'S:']
        out[re.search(r'SkinnyGemmKernelI(\w+?)EEv', m.group(1)).group(1)] = body
    return out
a, b = entries(sys.argv[1]), entries(sys.argv[2])
for name in sorted(a):
    diff = [l for l in difflib.unified_diff(a[name], b.get(name, []), lineterm='', n=0)
            if l[:1] in '+-' and not l.startswith(('---', '+++'))]
    print(f"SkinnyGemmKernel<{name}>: {len(a[name])} lines, {len(diff)} differing")
