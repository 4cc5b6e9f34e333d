#!/usr/bin/env python3
"""Goldens for vt's NFC normalizer: strings that exercise decomposition, canonical ordering,
composition, blocking, Hangul, singletons and composition exclusions, with Python's
unicodedata.normalize("NFC", s) as the expected output.

Usage: python3 tools/make_nfc_goldens.py > tests/fixtures/tokenizer/nfc_goldens.json
"""
import json
import random
import sys
import unicodedata

FIXED = [
    "plain ascii", "e\u0301", "e\u0300\u0301", "a\u0323\u0302", "a\u0302\u0323", "\u1e69", "s\u0307\u0323",
    "\u1100\u1161", "\u1100\u1161\u11a8", "\uac00\u11a8", "\u1100\u1161\u0301", "\u212b", "\u2126", "A\u030a",
    "\u0344", "\u0958", "\u0915\u093c", "\u00c5\u0301", "\u03b1\u0313\u0301\u0345", "\u1f00\u0345",
    "Vi\u1ec7t Nam", "Vie\u0323\u0302t", "\u0301leading mark", "\u0627\u0653", "\u05d0\u05b7\u05bc",
    "\ufb2c", "x\u0327\u0306", "\u0041\u0308\u0304", "\u01d5", "\u30ab\u3099", "\u30ac", "\u0e40\u0e01",
    "\U0001d15e", "\u2ff0", "\u0f73", "\u0f75\u0f71", "n\u0303o\u0308", "\u00e9\u0301\u0323",
]


def main():
    rng = random.Random(7)
    pools = [range(0x41, 0x7b), range(0x300, 0x370), range(0x1100, 0x1113), range(0x1161, 0x1176),
             range(0x11a8, 0x11c3), range(0xc0, 0x180), range(0x1e00, 0x1f00), range(0x591, 0x5c8),
             range(0x900, 0x980), range(0x3040, 0x30ff), range(0x1f00, 0x2000), range(0xac00, 0xac40)]
    cases = list(FIXED)
    for _ in range(400):
        n = rng.randint(1, 8)
        cases.append("".join(chr(rng.choice(rng.choice(pools))) for _ in range(n)))
    out = {"unicode": unicodedata.unidata_version,
           "cases": [{"input": s, "nfc": unicodedata.normalize("NFC", s)} for s in cases]}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main()
