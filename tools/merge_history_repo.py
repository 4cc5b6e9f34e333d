#!/usr/bin/env python3
"""A merge-heavy git history for timing `vt-gate trailers` against `git log` (issue #20): a main line
and topic branches that fork from it, take 2-6 commits and merge back with true two-parent merges,
so about a sixth of the commits are merges and two thirds are reachable only through second parents.
Every message carries the trailers of the `.vt-gate.yaml` it is given (vt-gate-bench's repository has
one), so the range checks clean. Written with `git fast-import`; deterministic.

Usage: python3 tools/merge_history_repo.py CONFIG_YAML OUT_DIR [COMMITS]
"""
import os
import random
import subprocess
import sys

TRAILERS = "Row: ENG-CORE\nAI-Assisted: true\nAssisted-by: Claude:claude-opus [vt-helper]\n"


def main():
    config, path = sys.argv[1], sys.argv[2]
    total = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    os.makedirs(path, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
    rng = random.Random(7)
    stream = []
    state = {"mark": 0, "time": 1_700_000_000}

    def blob(data):
        state["mark"] += 1
        stream.append(f"blob\nmark :{state['mark']}\ndata {len(data.encode())}\n{data}\n")
        return state["mark"]

    def commit(branch, message, parents, files):
        state["mark"] += 1
        state["time"] += 60
        mark = state["mark"]
        stream.append(f"commit refs/heads/{branch}\nmark :{mark}\n"
                      f"committer Bench <bench@example.com> {state['time']} +0000\n"
                      f"data {len(message.encode())}\n{message}\n")
        if parents:
            stream.append(f"from :{parents[0]}\n")
            stream.extend(f"merge :{p}\n" for p in parents[1:])
        stream.extend(f"M 100644 :{b} {name}\n" for name, b in files)
        stream.append("\n")
        return mark

    head = commit("main", "Initial\n\n" + TRAILERS, [], [(".vt-gate.yaml", blob(open(config).read()))])
    n = 1
    while n < total:
        tip = head
        for _ in range(rng.randint(2, 6)):
            tip = commit("topic", f"Topic change {n}\n\nBody {n}.\n\n" + TRAILERS, [tip],
                         [(f"src/t{n % 50}.txt", blob(f"topic {n}\n"))])
            n += 1
        head = commit("main", f"Main change {n}\n\nBody {n}.\n\n" + TRAILERS, [head],
                      [(f"src/m{n % 50}.txt", blob(f"main {n}\n"))])
        head = commit("main", f"Merge topic at {n + 1}\n\n" + TRAILERS, [head, tip], [])
        n += 2
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input="".join(stream).encode(), check=True)
    subprocess.run(["git", "-C", path, "reset", "-q", "--hard"], check=True)
    print(f"{path}: {n} commits")


if __name__ == "__main__":
    main()
