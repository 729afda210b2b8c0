"""A trained planner as one GGUF file, for llama.cpp and Ollama.

The ``gguf`` package (the ``[train]`` extra) writes the file: hyperparameters under the
architecture's keys, every tensor under llama.cpp's name for it (``gguf.TensorNameMap``), 2-D
weights in the chosen precision and norms in f32, and the tokenizer. Llama-family models
(SmolLM2 among them) and Qwen2-family models are supported. For the Llama layout the query and
key projections are permuted into llama.cpp's rotary order, as its own converter does. The
tokenizer is copied field by field from the base model's GGUF when the planner was trained
from one (the same vocabulary, merges, pre-tokenizer and chat template); from a model
directory it is read from ``tokenizer.json`` with the package's vocabulary readers.
Quantizing further (Q4_K_M and the like) is llama.cpp's ``llama-quantize``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ARCHES = {"LlamaForCausalLM": "llama", "Qwen2ForCausalLM": "qwen2"}


class ExportError(Exception):
    """The planner cannot be exported; the message says why."""


def _permute(w: Any, heads: int) -> Any:
    """The rotary halves of each head interleaved the way llama.cpp's Llama layout expects."""
    return (w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def _base_gguf(run: Path) -> Path | None:
    from perfpilot.training.model_io import root_base

    base = root_base(run)
    return base if base is not None and base.suffix == ".gguf" and base.is_file() else None


def _copy_tokenizer(writer: Any, source: Path) -> None:
    from gguf import GGUFReader, GGUFValueType

    reader = GGUFReader(source)
    for key, fld in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        value = fld.contents()
        if fld.types[0] == GGUFValueType.ARRAY:
            writer.add_key_value(key, value, GGUFValueType.ARRAY, sub_type=fld.types[-1])
        else:
            writer.add_key_value(key, value, fld.types[0])


def _tokenizer_from_dir(writer: Any, run: Path, arch: str) -> None:
    import gguf

    try:
        vocab = gguf.BpeVocab(run)
    except (OSError, ValueError, KeyError) as exc:
        raise ExportError(f"{run}: no byte-level BPE tokenizer to export ({exc})") from exc
    tokens, scores, types = [], [], []
    for text, score, kind in vocab.all_tokens():
        tokens.append(text)
        scores.append(score)
        types.append(kind)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2" if arch == "qwen2" else "default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    gguf.SpecialVocab(run, load_merges=True, n_vocab=len(tokens)).add_to_gguf(writer)


def export_gguf(run: Path, out: Path, outtype: str = "f16") -> Path:
    """Write the planner in ``run`` as ``out`` (f32, f16 or bf16 weights); returns ``out``."""
    try:
        import gguf
        import numpy as np
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM
    except ImportError as exc:
        raise ExportError(f"exporting needs the [train] extra (gguf, transformers): {exc}") \
            from exc
    config = AutoConfig.from_pretrained(run, local_files_only=True)
    arch_name = next((a for a in getattr(config, "architectures", None) or [] if a in ARCHES),
                     None)
    if arch_name is None:
        raise ExportError(f"{run}: architecture {config.architectures} is not exported "
                          f"(supported: {', '.join(ARCHES)}); use llama.cpp's "
                          "convert_hf_to_gguf.py")
    arch = ARCHES[arch_name]
    qtype = {"f32": gguf.GGMLQuantizationType.F32, "f16": gguf.GGMLQuantizationType.F16,
             "bf16": gguf.GGMLQuantizationType.BF16}[outtype]
    ftype = {"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16,
             "bf16": gguf.LlamaFileType.MOSTLY_BF16}[outtype]
    model = AutoModelForCausalLM.from_pretrained(run, local_files_only=True,
                                                 dtype=torch.float32)
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    blocks = config.num_hidden_layers
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH[arch.upper()], blocks)

    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(out, arch)
    writer.add_name(run.name)
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(blocks)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    rope = getattr(config, "rope_parameters", None) or {}
    theta: Any = rope.get("rope_theta") if isinstance(rope, dict) else None
    writer.add_rope_freq_base(float(theta or getattr(config, "rope_theta", 10000.0)))
    writer.add_rope_dimension_count(head_dim)
    writer.add_vocab_size(config.vocab_size)
    writer.add_file_type(ftype)
    base = _base_gguf(run)
    if base is not None:
        _copy_tokenizer(writer, base)
    else:
        _tokenizer_from_dir(writer, run, arch)

    tied = bool(getattr(config, "tie_word_embeddings", False))
    for hf_name, tensor in model.state_dict().items():
        if tied and hf_name == "lm_head.weight":
            continue  # llama.cpp reads the embedding for a tied output
        if hf_name.endswith("rotary_emb.inv_freq"):
            continue
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if name is None:
            raise ExportError(f"{run}: no GGUF name for tensor {hf_name}")
        data = tensor.detach().to(torch.float32).numpy()
        if arch == "llama" and hf_name.endswith("q_proj.weight"):
            data = _permute(data, heads)
        elif arch == "llama" and hf_name.endswith("k_proj.weight"):
            data = _permute(data, kv_heads)
        if data.ndim <= 1:
            writer.add_tensor(name, data.astype(np.float32))
            continue
        quantized = gguf.quants.quantize(data, qtype)
        writer.add_tensor(name, quantized, raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
