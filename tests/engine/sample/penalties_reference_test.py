#!/usr/bin/env python3
"""Frequency and presence penalties and logit_bias against a Python reference on the same logits.

`vt generate --json --logprobs 20` reports, per step, the drawn token and the model's raw top-20 logprobs
(before any adjustment). The reference adjusts each candidate's raw logprob as OpenAI and vLLM define it
(+ bias, - frequency x count in the output so far, - presence if it occurred); greedy decoding must then
draw the candidate with the highest adjusted score at every step whose top two are not a near-tie. These
adjustments are additive, so they rank logprobs as they rank logits. Usage: penalties_reference_test.py VT
"""
import json
import subprocess
import sys

vt = sys.argv[1]
PROMPT = "The meaning of life is"
FREQUENCY, PRESENCE, BIASED, BIAS = 1.5, 0.5, 266, 2.0  # 266 is " the" in the embedded model's vocabulary


def generate(extra):
    out = subprocess.run([vt, "generate", "--prompt", PROMPT, "--max-tokens", "48", "--json", "--logprobs", "20",
                          "--ignore-eos"] + extra, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


adjusted = generate(["--frequency-penalty", str(FREQUENCY), "--presence-penalty", str(PRESENCE),
                     "--logit-bias", f"{BIASED}={BIAS}"])
counts, checked = {}, 0
for step, entry in enumerate(adjusted["logprobs"]):
    def score(token, logprob):
        c = counts.get(token, 0)
        return logprob + (BIAS if token == BIASED else 0.0) - FREQUENCY * c - (PRESENCE if c else 0.0)
    candidates = {e["token_id"]: score(e["token_id"], e["logprob"]) for e in entry["top"]}
    candidates[entry["token_id"]] = score(entry["token_id"], entry["logprob"])  # drawn, even if outside the top 20
    ranked = sorted(candidates.items(), key=lambda kv: kv[1], reverse=True)
    if ranked[0][1] - ranked[1][1] > 1e-4:
        assert ranked[0][0] == entry["token_id"], (step, entry["token_id"], ranked[:3])
        checked += 1
    counts[entry["token_id"]] = counts.get(entry["token_id"], 0) + 1

plain = generate([])
assert plain["token_ids"] != adjusted["token_ids"], "the penalties changed nothing"
assert checked >= 40, f"only {checked} of 48 steps were clear of near-ties"
print(f"ok: {checked} of 48 greedy steps drew the reference's choice; the plain run differs")
