"""The local model worker: a separate process that loads a transformers model once and serves
generation requests as JSON lines on stdin/stdout.

Run as ``python -m perfpilot.llm.local_worker``; the server talks to it through
``perfpilot.llm.local.LocalWorker``. Keeping the model in its own process means a crash or an
out-of-memory kill never takes the language server down, and torch's threads never compete
with the server's event loop.

Requests (one JSON object a line)::

    {"op": "load", "model": PATH, "device": "cpu", "dtype": "auto", "threads": 1}
    {"op": "generate", "id": 1, "messages": [...], "n": 1, "max_tokens": 256,
     "temperature": 0.0, "stop": ["[/SUGG]"]}
    {"op": "cancel", "id": 1}
    {"op": "shutdown"}

Events::

    {"event": "ready", "device": ..., "dtype": ..., "chat_template": bool, "notes": [...]}
    {"event": "progress", "id": 1, "tokens": 12}
    {"event": "done", "id": 1, "texts": [...], "tokens": 40, "cancelled": false}
    {"event": "error", "id": 1 or null, "kind": "...", "message": "..."}
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from perfpilot.llm.devices import Hardware, resolve_placement
from perfpilot.llm.errors import LocalModelError
from perfpilot.llm.stopping import repeating, stop_at, tail_window

PROGRESS_EVERY_S = 0.2
# Files a transformers directory needs for its tokenizer (any one of these sets).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt",
                   "spiece.model", "sentencepiece.bpe.model")


@dataclass(frozen=True)
class ModelFiles:
    """Where to load from: a directory, plus the GGUF file name inside it when there is one."""

    directory: Path
    gguf_file: str | None


def locate_model_files(model: str) -> ModelFiles:
    """Check that ``model`` is a transformers directory or a ``.gguf`` file.

    Raises ``LocalModelError`` with a message naming the problem.
    """
    if not model.strip():
        raise LocalModelError("no local model is configured: set the model to a directory "
                              "or a .gguf file", "not-found")
    path = Path(model).expanduser()
    if not path.exists():
        hint = ""
        if not path.is_absolute() and model.count("/") == 1 and not model.startswith("."):
            # Looks like a hub id: local models are never downloaded.
            hint = "; give the path of a downloaded model directory or .gguf file"
        raise LocalModelError(f"local model not found: {path} does not exist{hint}",
                              "not-found")
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise LocalModelError(
                f"{path} is a file but not a .gguf model; give a model directory "
                "(with config.json) or a .gguf file", "format")
        return ModelFiles(path.parent, path.name)
    if (path / "config.json").is_file():
        if not any((path / name).is_file() for name in TOKENIZER_FILES) and \
                not any(path.glob("*.tiktoken")):
            raise LocalModelError(
                f"{path} has the model (config.json) but no tokenizer files: it needs "
                "tokenizer.json, or tokenizer.model, or vocab.json with merges.txt (copy them "
                "from the repository the model came from)", "format")
        return ModelFiles(path, None)
    ggufs = sorted(p.name for p in path.glob("*.gguf"))
    if len(ggufs) == 1:
        return ModelFiles(path, ggufs[0])
    if ggufs:
        raise LocalModelError(
            f"{path} holds several .gguf files ({', '.join(ggufs)}); name one of them", "format")
    raise LocalModelError(
        f"{path} is not a model directory: it has no config.json and no .gguf file", "format")


def truncate_at_stop(text: str, stop: list[str]) -> str:
    """Cut ``text`` at the first stop string (the stop string itself is dropped)."""
    cut = stop_at(text, stop)
    return text if cut < 0 else text[:cut]


def _whole(exc: BaseException) -> str:
    """An exception's whole message on one line (loaders explain over several lines)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 600 else text[:597] + "..."


def plain_prompt(messages: list[dict[str, str]]) -> str:
    """A prompt for models without a chat template: role-labelled blocks, then ``assistant:``."""
    parts = [f"{m.get('role', 'user')}:\n{m.get('content', '')}\n" for m in messages]
    return "\n".join(parts) + "\nassistant:\n"


def merge_system(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Fold system messages into the first user message, for templates without a system role."""
    system = "\n\n".join(m.get("content", "") for m in messages if m.get("role") == "system")
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if system and rest and rest[0].get("role") == "user":
        rest[0]["content"] = f"{system}\n\n{rest[0].get('content', '')}"
    elif system:
        rest.insert(0, {"role": "user", "content": system})
    return rest


def generation_error(exc: BaseException, device: str) -> dict[str, str]:
    """The ``kind`` and user-facing ``message`` for an exception raised while generating."""
    if isinstance(exc, LocalModelError):
        return {"kind": exc.kind, "message": str(exc)}
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, MemoryError) or "out of memory" in first.lower():
        return {"kind": "out-of-memory",
                "message": f"the model ran out of memory on {device} while generating; "
                           "lower maxTokens or samples, or use a smaller model"}
    return {"kind": "generation", "message": f"generation failed: {first}"}


class _Output:
    """Writes events to the protocol stream; the stdin reader and the generator share it."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, event: dict[str, Any]) -> None:
        line = json.dumps(event)
        with self._lock:
            self._stream.write(line + "\n")
            self._stream.flush()


def load_error(exc: BaseException, files: ModelFiles) -> LocalModelError:
    """The user-facing error for an exception raised while loading the model."""
    where = files.directory / files.gguf_file if files.gguf_file else files.directory
    first = _whole(exc)
    if isinstance(exc, MemoryError) or "out of memory" in first.lower():
        return LocalModelError(
            f"not enough memory to load {where}; use a smaller model, dtype float16/bfloat16 "
            "on a GPU, or a quantized .gguf", "out-of-memory")
    if isinstance(exc, ImportError):
        return LocalModelError(
            f"loading {where} needs a missing package ({first}); install perfpilot[local]",
            "missing-dependency")
    return LocalModelError(f"could not load the model {where}: {first}", "format")


class Worker:
    """The loaded model and its generation loop (one request at a time)."""

    def __init__(self, out: _Output) -> None:
        self._out = out
        self._torch: Any = None
        self._model: Any = None
        self._tokenizer: Any = None
        self._device = "cpu"
        self._cancel = threading.Event()
        self._current: int | None = None
        self._thread: threading.Thread | None = None

    # -- loading -------------------------------------------------------------------------
    def load(self, req: dict[str, Any]) -> bool:
        """Load the model named in ``req``; send ``ready`` or an ``error`` event."""
        try:
            info = self._load(req)
        except LocalModelError as exc:
            self._out.send({"event": "error", "id": None, "kind": exc.kind,
                            "message": str(exc), "fatal": True})
            return False
        self._out.send({"event": "ready", **info})
        return True

    def _load(self, req: dict[str, Any]) -> dict[str, Any]:
        started = time.monotonic()
        files = locate_model_files(str(req.get("model", "")))
        threads = max(1, int(req.get("threads", 1)))
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise LocalModelError(
                "the local backend needs torch and transformers: install perfpilot[local] "
                f"({exc})", "missing-dependency") from exc
        torch.set_num_threads(threads)
        try:
            import accelerate  # noqa: F401
            has_accelerate = True
        except ImportError:
            has_accelerate = False
        cuda = bool(torch.cuda.is_available())
        hw = Hardware(
            cuda_available=cuda,
            cuda_count=torch.cuda.device_count() if cuda else 0,
            bf16_supported=bool(cuda and torch.cuda.is_bf16_supported()),
            accelerate_available=has_accelerate,
        )
        placement = resolve_placement(str(req.get("device", "cpu")),
                                      str(req.get("dtype", "auto")), hw)
        kwargs: dict[str, Any] = {"local_files_only": True}
        if files.gguf_file:
            try:
                import gguf  # noqa: F401
            except ImportError as exc:
                raise LocalModelError("loading a .gguf model needs the gguf package: install "
                                      "perfpilot[local]", "missing-dependency") from exc
            kwargs["gguf_file"] = files.gguf_file
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(str(files.directory),
                                                                   **kwargs)
            model_kwargs = dict(kwargs, dtype=getattr(torch, placement.dtype))
            if placement.device_map is not None:
                model_kwargs["device_map"] = placement.device_map
            auto_model: Any = transformers.AutoModelForCausalLM
            model: Any = auto_model.from_pretrained(str(files.directory), **model_kwargs)
            if placement.device_map is None:
                model = model.to(placement.device)
        except LocalModelError:
            raise
        except Exception as exc:  # every loader failure becomes one message
            raise load_error(exc, files) from exc
        model.eval()
        self._torch, self._model, self._tokenizer = torch, model, tokenizer
        self._device = str(model.device) if placement.device_map else placement.device
        return {
            "device": self._device,
            "dtype": placement.dtype,
            "chat_template": bool(getattr(tokenizer, "chat_template", None)),
            "notes": list(placement.notes),
            "load_s": round(time.monotonic() - started, 3),
            "context": int(getattr(model.config, "max_position_embeddings", 0) or 0),
        }

    # -- generation ----------------------------------------------------------------------
    def start_generate(self, req: dict[str, Any]) -> None:
        """Run one generation on a thread so ``cancel`` can still be read from stdin."""
        rid = int(req["id"])
        if self._model is None:
            self._out.send({"event": "error", "id": rid, "kind": "not-loaded",
                            "message": "the local model is not loaded"})
            return
        if self._current is not None:
            self._out.send({"event": "error", "id": rid, "kind": "busy",
                            "message": "the local model worker is busy"})
            return
        if self._thread is not None:
            self._thread.join(timeout=5)  # it has sent its answer and is returning
        self._cancel.clear()
        self._current = rid
        self._thread = threading.Thread(target=self._generate_safely, args=(req,), daemon=True)
        self._thread.start()

    def cancel(self, rid: int) -> None:
        """Stop the running generation if it is ``rid``."""
        if self._current == rid:
            self._cancel.set()

    def wait(self) -> None:
        """Wait for the running generation (at shutdown)."""
        if self._thread is not None:
            self._cancel.set()
            self._thread.join(timeout=5)

    def _generate_safely(self, req: dict[str, Any]) -> None:
        rid = int(req["id"])
        event: dict[str, Any]
        try:
            texts, tokens = self._generate(req)
        except Exception as exc:  # report, keep serving
            if self._torch is not None and self._device.startswith("cuda"):
                self._torch.cuda.empty_cache()
            event = {"event": "error", "id": rid, **generation_error(exc, self._device)}
        else:
            event = {"event": "done", "id": rid, "texts": texts, "tokens": tokens,
                     "cancelled": self._cancel.is_set()}
        # Free the slot before answering: the client may send the next request at once.
        self._current = None
        self._out.send(event)

    def _prompt(self, messages: list[dict[str, str]]) -> str:
        tok = self._tokenizer
        if not getattr(tok, "chat_template", None):
            return plain_prompt(messages)
        try:
            text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        except Exception:  # some templates (Gemma's) refuse a system message
            text = tok.apply_chat_template(merge_system(messages), tokenize=False,
                                           add_generation_prompt=True)
        return str(text)

    def _generate(self, req: dict[str, Any]) -> tuple[list[str], int]:
        torch, model, tok = self._torch, self._model, self._tokenizer
        rid = int(req["id"])
        n = max(1, int(req.get("n", 1)))
        temperature = float(req.get("temperature", 0.0))
        stop = [str(s) for s in req.get("stop", []) if s]
        max_new = max(1, int(req.get("max_tokens", 256)))
        prompt = self._prompt(list(req.get("messages", [])))
        # A chat template already carries the special tokens; a plain prompt needs them.
        templated = bool(getattr(tok, "chat_template", None))
        enc = tok(prompt, return_tensors="pt", add_special_tokens=not templated)
        input_ids = enc["input_ids"].to(self._device)
        prompt_len = int(input_ids.shape[-1])
        context = int(getattr(model.config, "max_position_embeddings", 0) or 0)
        if context:
            if prompt_len >= context:
                raise LocalModelError(
                    f"the prompt has {prompt_len} tokens but the model's context is {context}",
                    "bad-request")
            max_new = min(max_new, context - prompt_len)
        criteria = _make_criteria(torch, self._cancel, prompt_len,
                                  lambda t: self._out.send(
                                      {"event": "progress", "id": rid, "tokens": t}),
                                  tok, stop)
        kwargs: dict[str, Any] = {
            "input_ids": input_ids,
            "attention_mask": enc["attention_mask"].to(self._device),
            "max_new_tokens": max_new,
            "stopping_criteria": criteria,
            "pad_token_id": tok.pad_token_id if tok.pad_token_id is not None
            else tok.eos_token_id,
        }
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, num_return_sequences=n)
        else:
            kwargs.update(do_sample=False)
        with torch.inference_mode():
            output = model.generate(**kwargs)
        new = output[:, prompt_len:]
        texts = [truncate_at_stop(tok.decode(row, skip_special_tokens=True), stop)
                 for row in new]
        return ([] if self._cancel.is_set() else texts), int(new.shape[-1])


def _make_criteria(torch: Any, cancel: threading.Event, prompt_len: int,
                   progress: Callable[[int], None], tokenizer: Any = None,
                   stop: list[str] | None = None) -> Any:
    """A StoppingCriteriaList that reports progress and ends a sequence when ``cancel`` is
    set, when its text so far holds a stop string, or when it repeats itself."""
    import transformers

    stops = [s for s in (stop or []) if s]
    # Tokens to decode from the end, at one character per token at worst: enough for the
    # longest stop string (checked every step, so a plan ends at once), and for a repeated
    # unit (checked every eighth step, since it costs more).
    stop_window = max([0, *(len(s) + 8 for s in stops)])
    repeat_window = tail_window()

    def tail(row: Any, tokens: int) -> str:
        return str(tokenizer.decode(row[prompt_len:][-tokens:], skip_special_tokens=True))

    class StopEarly(transformers.StoppingCriteria):  # type: ignore[misc]
        def __init__(self) -> None:
            self.last = 0.0
            self.steps = 0

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            now = time.monotonic()
            if now - self.last >= PROGRESS_EVERY_S:
                self.last = now
                progress(int(input_ids.shape[-1]) - prompt_len)
            rows = int(input_ids.shape[0])
            if cancel.is_set():
                return torch.ones((rows,), dtype=torch.bool, device=input_ids.device)
            self.steps += 1
            done = [False] * rows
            if tokenizer is not None:
                for r in range(rows):
                    row = input_ids[r]
                    done[r] = (bool(stops) and stop_at(tail(row, stop_window), stops) >= 0) or (
                        self.steps % 8 == 0 and repeating(tail(row, repeat_window)))
            return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

    return transformers.StoppingCriteriaList([StopEarly()])


def serve(stdin: IO[str], out: _Output) -> None:
    """Read requests until ``shutdown`` or end of input."""
    worker = Worker(out)
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError:
            out.send({"event": "error", "id": None, "kind": "protocol",
                      "message": "the worker received a malformed request"})
            continue
        op = req.get("op")
        if op == "load":
            if not worker.load(req):
                break  # a fresh worker retries, so a fixed file is picked up
        elif op == "generate":
            worker.start_generate(req)
        elif op == "cancel":
            worker.cancel(int(req.get("id", -1)))
        elif op == "shutdown":
            break
    worker.wait()


def main() -> None:
    """Entry point: keep the protocol on the original stdout, send stray prints to stderr."""
    proto = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", buffering=1)
    # Libraries print progress bars and warnings; they must never corrupt the protocol stream.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin, _Output(proto))


if __name__ == "__main__":
    main()
