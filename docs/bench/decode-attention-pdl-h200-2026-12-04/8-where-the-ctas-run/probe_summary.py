import sys, collections, statistics as st
for line in open(sys.argv[1]):
    if not line.startswith('PROBE '): continue
    parts = line.split()
    label = parts[1]; v = list(map(int, parts[2:]))
    ctas = [(v[4*i], v[4*i+1], v[4*i+2], v[4*i+3]) for i in range(2048) if v[4*i+3]]
    if not ctas: continue
    t0 = min(c[2] for c in ctas)
    per_sm = collections.Counter(c[1] for c in ctas)
    hist = collections.Counter(per_sm.values())
    entry = [ (c[0]-t0)/1e3 for c in ctas]
    start = [ (c[2]-t0)/1e3 for c in ctas]
    end = [ (c[3]-t0)/1e3 for c in ctas]
    dur = [ (c[3]-c[2])/1e3 for c in ctas]
    # CTAs per SM in blockIdx order: are consecutive CTAs on one SM?
    same_sm_neighbours = sum(1 for i in range(len(ctas)-1) if ctas[i][1]==ctas[i+1][1])
    print(f"{label}: ctas {len(ctas)} sms {len(per_sm)} ctas/sm {dict(sorted(hist.items()))} "
          f"entry {min(entry):.1f}..{max(entry):.1f} start {min(start):.1f}..{max(start):.1f} "
          f"end {min(end):.1f}..{max(end):.1f} (p50 {st.median(end):.1f}) dur p10 {sorted(dur)[len(dur)//10]:.1f} "
          f"p50 {st.median(dur):.1f} p90 {sorted(dur)[len(dur)*9//10]:.1f} max {max(dur):.1f} "
          f"same-SM neighbours {same_sm_neighbours}; first SMs of CTAs 0-5: {[c[1] for c in ctas[:6]]}")
    # per-SM slowest finishing
    by_sm = collections.defaultdict(list)
    for c in ctas: by_sm[c[1]].append((c[3]-t0)/1e3)
    sm_end = sorted((max(x), sm) for sm, x in by_sm.items())
    print(f"   SM finish p10 {sm_end[len(sm_end)//10][0]:.1f} p50 {sm_end[len(sm_end)//2][0]:.1f} max {sm_end[-1][0]:.1f}")
