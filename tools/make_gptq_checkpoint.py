#!/usr/bin/env python3
"""Writes a GPTQ-format int4 checkpoint of an HF model directory by round-to-nearest
symmetric quantisation, for vt's W4A16 tests (pure Python 3: no numpy or torch, so it
runs wherever CI runs).

Every linear projection of the decoder layers (q/k/v/o_proj, gate/up/down_proj) becomes
the four GPTQ tensors AutoGPTQ writes for bits 4, sym, desc_act false; embeddings, norms,
biases and lm_head keep their stored type. An HF Linear weight is [N, K] (out, in); GPTQ
stores its transpose:

  <name>.qweight  int32 [K/8, N]   eight 4-bit values q along K, k % 8 at bits 4*(k % 8)
  <name>.qzeros   int32 [G, N/8]   every nibble 7: AutoGPTQ v1's "zero - 1" for zero point 8
  <name>.scales   fp16  [G, N]     G = K / group_size (1 with --group-size -1)
  <name>.g_idx    int32 [K]        k / group_size
  weight[n][k] = (q - 8) * scale[k / group_size][n]

The scale of a group is AutoGPTQ's symmetric one, 2 * max|w| / 15, and q = clamp(round(w /
scale) + 8, 0, 15). With --dequantized-out the script also writes the same model with every
projection dequantised to float32 as (q - 8) * bf16(scale), the exact values vt's CPU
backend computes with, so a test can compare the two checkpoints bit for bit.

  python3 tools/make_gptq_checkpoint.py assets/models/fortune-qwen3-7m --out /tmp/q \\
      --dequantized-out /tmp/q-fp32
"""
import argparse
import array
import json
import os
import shutil
import struct
import sys

PROJECTIONS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
               "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
# Copied as they are: the tokenizer and generation settings belong to both outputs.
SIDE_FILES = ("generation_config.json", "tokenizer.json", "tokenizer_config.json")
ELEMENT_SIZE = {"BF16": 2, "F16": 2, "F32": 4, "I32": 4}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        tensors[name] = (entry["dtype"], entry["shape"], data[base + begin:base + end])
    return tensors


def write_safetensors(path, tensors):
    """tensors: list of (name, dtype, shape, bytes). 4-byte types go first so every tensor
    is aligned to its element size without gaps between tensors."""
    ordered = sorted(tensors, key=lambda t: -ELEMENT_SIZE[t[1]])
    header, offset = {}, 0
    for name, dtype, shape, raw in ordered:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, raw in ordered:
            f.write(raw)


def to_floats(dtype, raw):
    out = array.array("f")
    if dtype == "F32":
        out.frombytes(raw)
    elif dtype == "BF16":
        halves = array.array("H")
        halves.frombytes(raw)
        out.frombytes(array.array("I", (h << 16 for h in halves)).tobytes())
    elif dtype == "F16":
        out.extend(struct.unpack("<%de" % (len(raw) // 2), raw))
    else:
        sys.exit("unsupported dtype %s" % dtype)
    return out


def round_to_bf16(x):
    """float -> nearest bf16 value (ties to even), as vt's FloatToBf16 rounds."""
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0]


def quantize(w, n_out, k_in, group):
    """w: floats of an [N, K] Linear weight. Returns (qweight, qzeros, scales, g_idx) as
    bytes, and the dequantised [N, K] float32 weight as bytes."""
    g = k_in if group == -1 else group
    groups = k_in // g
    qweight = array.array("I", bytes(4 * (k_in // 8) * n_out))
    scales = array.array("H", bytes(2 * groups * n_out))
    dequant = array.array("f", bytes(4 * n_out * k_in))
    for n in range(n_out):
        row_q = bytearray(k_in)
        for gi in range(groups):
            lo = n * k_in + gi * g
            seg = w[lo:lo + g]
            amax = max(max(seg), -min(seg))
            bits = struct.pack("<e", 2.0 * amax / 15.0 if amax > 0 else 1.0)
            scale = struct.unpack("<e", bits)[0]
            if scale == 0.0:  # a group of near-zero weights whose scale underflows fp16
                bits = struct.pack("<e", 1.0)
                scale = 1.0
            scales[gi * n_out + n] = struct.unpack("<H", bits)[0]
            qs = bytes(min(15, max(0, round(x / scale) + 8)) for x in seg)
            row_q[gi * g:(gi + 1) * g] = qs
            sb = round_to_bf16(scale)
            dequant[lo:lo + g] = array.array("f", ((q - 8) * sb for q in qs))
        # Nibble pairs little-endian: byte j of a word holds k = 2j (low) and 2j + 1 (high).
        packed = bytes(row_q[i] | (row_q[i + 1] << 4) for i in range(0, k_in, 2))
        qweight[n::n_out] = array.array("I", packed)
    qzeros = struct.pack("<I", 0x77777777) * (groups * (n_out // 8))
    g_idx = array.array("i", (k // g for k in range(k_in))).tobytes()
    return (qweight.tobytes(), qzeros, scales.tobytes(), g_idx), dequant.tobytes()


def is_projection(name):
    return name.startswith("model.layers.") and name.endswith(".weight") and \
        any(name.endswith(p + ".weight") for p in PROJECTIONS)


def main():
    if sys.byteorder != "little":
        sys.exit("this script assumes a little-endian machine")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", help="HF model directory with config.json and model.safetensors")
    ap.add_argument("--out", required=True, help="directory of the GPTQ checkpoint to write")
    ap.add_argument("--group-size", type=int, default=128, choices=(128, -1))
    ap.add_argument("--dequantized-out", help="also write the dequantised float32 checkpoint here")
    args = ap.parse_args()

    with open(os.path.join(args.model_dir, "config.json")) as f:
        config = json.load(f)
    if config.get("quantization_config"):
        sys.exit("%s is already quantised" % args.model_dir)
    src = os.path.join(args.model_dir, "model.safetensors")
    if not os.path.exists(src):
        sys.exit("%s: only single-file model.safetensors checkpoints are supported" % args.model_dir)
    tensors = read_safetensors(src)

    quantized, dequantized = [], []
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        if not is_projection(name):
            quantized.append((name, dtype, shape, raw))
            dequantized.append((name, dtype, shape, raw))
            continue
        n_out, k_in = shape
        if k_in % 128 or n_out % 64:
            sys.exit("%s: shape %s, GPTQ W4A16 needs K %% 128 == 0 and N %% 64 == 0" % (name, shape))
        groups = 1 if args.group_size == -1 else k_in // args.group_size
        (qweight, qzeros, scales, g_idx), deq = quantize(to_floats(dtype, raw), n_out, k_in, args.group_size)
        prefix = name[:-len(".weight")]
        quantized += [(prefix + ".qweight", "I32", [k_in // 8, n_out], qweight),
                      (prefix + ".qzeros", "I32", [groups, n_out // 8], qzeros),
                      (prefix + ".scales", "F16", [groups, n_out], scales),
                      (prefix + ".g_idx", "I32", [k_in], g_idx)]
        dequantized.append((name, "F32", shape, deq))

    outputs = [(args.out, quantized, True)]
    if args.dequantized_out:
        outputs.append((args.dequantized_out, dequantized, False))
    for out_dir, out_tensors, gptq in outputs:
        os.makedirs(out_dir, exist_ok=True)
        out_config = dict(config)
        if gptq:
            out_config["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": args.group_size,
                                                 "sym": True, "desc_act": False}
        with open(os.path.join(out_dir, "config.json"), "w") as f:
            json.dump(out_config, f, indent=2)
            f.write("\n")
        for side in SIDE_FILES:
            if os.path.exists(os.path.join(args.model_dir, side)):
                shutil.copyfile(os.path.join(args.model_dir, side), os.path.join(out_dir, side))
        write_safetensors(os.path.join(out_dir, "model.safetensors"), out_tensors)


if __name__ == "__main__":
    main()
