#!/usr/bin/env python3
"""Trains vt's embedded default model: a byte-level BPE tokenizer and a small
Qwen3ForCausalLM (head_dim 128, 2 query heads per KV head, so it runs the same
kernels as real Qwen3 / Llama-3 models) on the BSD fortune database shipped by
Debian's `fortunes` and `fortunes-min` packages.

Also records, with transformers in float32 on the saved bf16 weights, the greedy
continuations (64 tokens) of 16 prompts and the top-2 logit margin of each step:
the token-exact gate vt's engines are checked against.

Runs where torch, transformers and tokenizers are installed (the GPU machine):

    python3 assets/models/fortune-qwen3-7m/train_embedded_model.py --corpus DIR --out OUT

DIR holds the fortune text files (copied from /usr/share/games/fortunes, without
the .dat indexes). OUT receives config.json, generation_config.json,
model.safetensors, tokenizer.json, tokenizer_config.json, expected.json and
metrics.json.
"""
import argparse
import json
import math
import os
import random
import time

import torch
import transformers
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
from transformers import AutoModelForCausalLM, Qwen3Config

# Qwen2/Qwen3's pre-tokenizer pattern: the same split rules real checkpoints use.
SPLIT_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Art files are pictures made of characters, not language.
SKIP_FILES = {"art", "ascii-art"}
CHAT_TEMPLATE = ("{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] "
                 "+ '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
                 "{%- endif %}")
PROMPTS = [
    "The meaning of life is", "A computer", "Never trust", "Q: What do you call",
    "Love is", "The best way to", "In the beginning", "Linux is", "A wise man once said",
    "Why did the", "There are two kinds of people", "The problem with", "If you can't",
    "My doctor told me", "Every program", "Knowledge is",
]


def read_fortunes(corpus_dir):
    fortunes = []
    for name in sorted(os.listdir(corpus_dir)):
        if name in SKIP_FILES or name.endswith((".dat", ".u8")):
            continue
        with open(os.path.join(corpus_dir, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for entry in text.split("\n%\n"):
            entry = entry.strip("\n%")
            if entry.strip():
                fortunes.append(entry)
    return fortunes


def train_tokenizer(texts, vocab_size):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SPLIT_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    return tok


def encode_all(tok, texts, eot):
    ids = []
    for enc in tok.encode_batch(texts):
        ids.extend(enc.ids)
        ids.append(eot)
    return torch.tensor(ids, dtype=torch.long)


@torch.no_grad()
def evaluate(model, data, seq_len, batch):
    """Mean next-token cross-entropy over consecutive windows of the held-out tokens."""
    model.eval()
    total, count = 0.0, 0
    starts = list(range(0, len(data) - seq_len - 1, seq_len))
    for i in range(0, len(starts), batch):
        x = torch.stack([data[s:s + seq_len + 1] for s in starts[i:i + batch]]).cuda()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x[:, :-1]).logits.float()
        total += torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), x[:, 1:].reshape(-1),
                                                   reduction="sum").item()
        count += x[:, 1:].numel()
    model.train()
    return total / count


@torch.no_grad()
def greedy_fixture(model_dir, tok, steps):
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    prompts, greedy, margins = [], [], []
    for text in PROMPTS:
        seq = tok.encode(text).ids
        prompts.append(list(seq))
        out, m = [], []
        for _ in range(steps):
            logits = model(torch.tensor([seq]), use_cache=False).logits[0, -1].float()
            top = torch.topk(logits, 2)
            m.append(float(top.values[0] - top.values[1]))
            nxt = int(top.indices[0])
            out.append(nxt)
            seq.append(nxt)
        greedy.append(out)
        margins.append(m)
    return {"made_with": f"transformers {transformers.__version__}, torch {torch.__version__}",
            "compute": "float32, eager attention, no KV cache, weights exactly bf16",
            "prompt_texts": PROMPTS, "prompts": prompts, "greedy": greedy, "margins": margins}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--steps", type=int, default=2400)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()

    fortunes = read_fortunes(args.corpus)
    random.shuffle(fortunes)
    n_val = max(1, len(fortunes) // 20)  # 5% held out, whole fortunes
    val_texts, train_texts = fortunes[:n_val], fortunes[n_val:]
    tok = train_tokenizer(train_texts, args.vocab)
    eot = tok.token_to_id("<|endoftext|>")
    train_ids, val_ids = encode_all(tok, train_texts, eot), encode_all(tok, val_texts, eot)
    print(f"fortunes {len(fortunes)} (val {n_val}), tokens train {len(train_ids)} val {len(val_ids)}, "
          f"vocab {tok.get_vocab_size()}", flush=True)

    config = Qwen3Config(vocab_size=tok.get_vocab_size(), hidden_size=256, intermediate_size=768,
                         num_hidden_layers=args.layers, num_attention_heads=4, num_key_value_heads=2, head_dim=128,
                         max_position_embeddings=2048, rope_theta=10000.0, rms_norm_eps=1e-6,
                         tie_word_embeddings=True, bos_token_id=eot, eos_token_id=eot, use_sliding_window=False)
    model = AutoModelForCausalLM.from_config(config).cuda()
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    warmup = 100
    schedule = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(1.0, s / args.steps))))

    best = (float("inf"), None, 0)
    history = []
    for step in range(args.steps + 1):
        if step % 100 == 0:
            val = evaluate(model, val_ids, args.seq_len, args.batch)
            history.append({"step": step, "val_loss": val})
            print(f"step {step} val loss {val:.4f} ppl {math.exp(val):.2f} ({time.time() - t0:.0f}s)", flush=True)
            if val < best[0]:
                best = (val, {k: v.detach().clone() for k, v in model.state_dict().items()}, step)
        if step == args.steps:
            break
        starts = torch.randint(0, len(train_ids) - args.seq_len - 1, (args.batch,))
        x = torch.stack([train_ids[s:s + args.seq_len + 1] for s in starts]).cuda()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x[:, :-1]).logits.float()
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        schedule.step()

    model.load_state_dict(best[1])
    model = model.to(torch.bfloat16).cpu()
    model.save_pretrained(args.out, safe_serialization=True)
    tok.save(os.path.join(args.out, "tokenizer.json"))
    with open(os.path.join(args.out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 2048,
                   "bos_token": None, "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
                   "add_bos_token": False, "chat_template": CHAT_TEMPLATE,
                   "added_tokens_decoder": {str(tok.token_to_id(t)): {"content": t, "special": True}
                                            for t in SPECIALS}}, f, indent=1)

    fixture = greedy_fixture(args.out, tok, 64)
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump(fixture, f)
    metrics = {"fortunes": len(fortunes), "val_fortunes": n_val, "train_tokens": len(train_ids),
               "val_tokens": len(val_ids), "params": params, "best_step": best[2], "val_loss": best[0],
               "val_perplexity": math.exp(best[0]), "history": history, "seconds": time.time() - t0,
               "args": vars(args), "torch": torch.__version__, "transformers": transformers.__version__,
               "device": torch.cuda.get_device_name(0)}
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
    print(f"best step {best[2]} val loss {best[0]:.4f} ppl {math.exp(best[0]):.2f}; min fixture margin "
          f"{min(min(m) for m in fixture['margins']):.3g}; {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
