"""The llama.cpp backend: any GGUF model, its own chat template, answers under a JSON grammar."""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulacra.errors import UserError
from simulacra.llm.batch import BatchDecoder, Job
from simulacra.llm.completion import Completion, Request
from simulacra.llm.fitting import ANSWER_ROOM
from simulacra.llm.fixedtext import FixedText
from simulacra.llm.grammar import grammar_text
from simulacra.settings import LLMSettings

GRAMMARS_KEPT = 256
_LOADER_CTX = 64

# Stand-ins for the system and user texts when the chat template is rendered once: what the
# template itself writes around them is tokenized with its special tokens, the texts in their
# place as plain text (private-use characters: no template and no user text contains them).
_SLOTS = {"\ue000system\ue001": "system", "\ue000user\ue001": "user"}
_SLOT_PATTERN = re.compile("(" + "|".join(map(re.escape, _SLOTS)) + ")")
# Bytes a chat template may add around the texts. Every token holds at least one byte, so a
# prompt of fewer bytes than the context minus this surely fits without counting its tokens.
_TEMPLATE_BYTES = 1024

# Used when a GGUF carries no chat template (base models): plain labelled turns.
_PLAIN_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] | capitalize }}:\n{{ m['content'] }}\n\n{% endfor %}"
    "{% if add_generation_prompt %}Assistant:\n{% endif %}"
)


def file_identity(path: Path) -> str:
    """A fast fingerprint of a (possibly multi-GB) model file: size plus head and tail bytes."""
    size = path.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with path.open("rb") as f:
        h.update(f.read(1 << 22))
        f.seek(max(0, size - (1 << 22)))
        h.update(f.read(1 << 22))
    return f"{path.name}:{h.hexdigest()[:16]}"


@dataclass(frozen=True)
class ModelInfo:
    path: Path
    name: str
    n_ctx: int
    n_ctx_train: int
    n_threads: int
    n_gpu_layers: int
    chat_template: str  # "gguf" or "plain (no template in the GGUF)"
    llama_cpp_version: str


class LlamaCppModel:
    """A :class:`~simulacra.llm.completion.Completer` over llama-cpp-python.

    Calls made at once decode together, each a sequence of one llama.cpp context
    (:mod:`simulacra.llm.batch`).
    """

    def __init__(self, path: Path, settings: LLMSettings, *, agents: int = 1) -> None:
        self.path = path
        self.settings = settings
        self.agents = agents  # whose calls it takes: they size the saved KV states
        self._identity = file_identity(path)
        self._llm = None  # set last when loading: other threads then find everything ready
        # Schemas with run-time options (places, people) differ call to call: keep the recent.
        self._grammars: OrderedDict[str, tuple[str, FixedText]] = OrderedDict()
        self._lock = threading.RLock()
        self._skeleton: list[list[int] | str] | None = None
        self._far_east_tokens: np.ndarray | None = None

    def _load(self):
        """Load on first need: a run answered entirely from the replay cache never loads."""
        if self._llm is not None:
            return self._llm
        with self._lock:
            if self._llm is None:
                self._load_now()
        return self._llm

    def _load_now(self) -> None:
        import llama_cpp

        settings = self.settings
        n_threads = settings.n_threads or os.cpu_count() or 1
        # llama.cpp prints load diagnostics on stderr even when asked not to be verbose.
        with _quiet_stderr():
            try:
                # The Llama object loads the weights and tokenizes; its own context is kept
                # small, since the batch decoder's context reads every prompt.
                llm = llama_cpp.Llama(
                    model_path=str(self.path),
                    n_ctx=_LOADER_CTX,
                    n_batch=_LOADER_CTX,
                    n_threads=n_threads,
                    n_gpu_layers=settings.n_gpu_layers,
                    seed=settings.seed,
                    verbose=False,
                )
                decoder = BatchDecoder(
                    llm,
                    n_parallel=settings.n_parallel,
                    n_ctx=settings.n_ctx,
                    n_batch=settings.n_batch,
                    n_threads=n_threads,
                    saved_bytes=settings.kv_cache_mb_for(self.agents) << 20,
                    lookahead=settings.lookahead,
                    detokenize=lambda t: llm.detokenize(t).decode("utf-8", errors="ignore"),
                    tokenize=lambda text: llm.tokenize(
                        text.encode("utf-8"), add_bos=False, special=False
                    ),
                )
            except (ValueError, RuntimeError) as e:
                raise UserError(
                    f"llama.cpp could not load the model: {e}",
                    file=self.path,
                    fix="check that it is a complete GGUF file for a model llama.cpp supports",
                ) from None
        meta = llm.metadata
        template = meta.get("tokenizer.chat_template")
        self._bos = _token_text(llm, llm.token_bos())
        self._format = llama_cpp.llama_chat_format.Jinja2ChatFormatter(
            template or _PLAIN_TEMPLATE,
            eos_token=_token_text(llm, llm.token_eos()),
            bos_token=self._bos,
        )
        self._info = ModelInfo(
            path=self.path,
            name=meta.get("general.name") or self.path.stem,
            n_ctx=settings.n_ctx,
            n_ctx_train=int(_context_length(meta) or 0),
            n_threads=n_threads,
            n_gpu_layers=settings.n_gpu_layers,
            chat_template="from the GGUF" if template else "plain (the GGUF has none)",
            llama_cpp_version=llama_cpp.__version__,
        )
        self._decoder = decoder
        self._llm = llm

    @property
    def info(self) -> ModelInfo:
        self._load()
        return self._info

    @property
    def identity(self) -> str:
        return self._identity

    def render(self, system: str, user: str) -> str:
        """The prompt text the model sees, in the model's own chat format."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        self._load()
        try:
            return self._format(messages=messages).prompt
        except Exception:
            # Some templates (Gemma's) reject a system turn: fold it into the user turn.
            merged = [{"role": "user", "content": f"{system}\n\n{user}"}]
            return self._format(messages=merged).prompt

    def prompt_tokens(self, system: str, user: str) -> list[int]:
        """The prompt as tokens. Only the chat template's own markers are special tokens:
        ``<|im_start|>`` in a persona, a whisper, an object's state or an earlier answer is
        plain text, so no text can open a turn of its own or end the user's."""
        texts = {"system": system, "user": user}
        tokens: list[int] = []
        for piece in self._template_pieces():
            tokens.extend(self.plain_tokens(texts[piece]) if isinstance(piece, str) else piece)
        return tokens

    def plain_tokens(self, text: str) -> list[int]:
        self._load()
        if not text:
            return []
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def _template_pieces(self) -> list[list[int] | str]:
        """The rendered template cut at the texts: token lists of the template's own parts
        (special tokens parsed) and the names of the texts between them."""
        if self._skeleton is not None:
            return self._skeleton
        self._load()
        slots = list(_SLOTS)
        rendered = self.render(slots[0], slots[1])
        pieces: list[list[int] | str] = []
        for part in _SLOT_PATTERN.split(rendered):
            if part in _SLOTS:
                pieces.append(_SLOTS[part])
            elif part:
                pieces.append(self._llm.tokenize(part.encode("utf-8"), add_bos=False, special=True))
        if self._llm._model.add_bos_token() and not (self._bos and rendered.startswith(self._bos)):
            pieces.insert(0, [self._llm.token_bos()])
        self._skeleton = pieces
        return pieces

    def fits(self, system: str, user: str, answer_tokens: int) -> bool:
        """Whether the prompt and ``answer_tokens`` fit the context. Short prompts are known
        to fit from their length alone, so a run answered from the replay cache never loads
        the model to count."""
        size = len(system.encode("utf-8")) + len(user.encode("utf-8")) + _TEMPLATE_BYTES
        if size + answer_tokens <= self.settings.n_ctx:
            return True
        return len(self.prompt_tokens(system, user)) + answer_tokens <= self.info.n_ctx

    def _grammar(self, schema: dict) -> tuple[str, FixedText]:
        """The schema's GBNF, and what it fixes of an answer (drafted, see batch.py)."""
        key = json.dumps(schema, sort_keys=True)
        with self._lock:
            if key in self._grammars:
                self._grammars.move_to_end(key)
                return self._grammars[key]
        made = (grammar_text(schema), FixedText(schema))
        with self._lock:
            self._grammars[key] = made
            if len(self._grammars) > GRAMMARS_KEPT:
                self._grammars.popitem(last=False)
        return made

    def complete(self, request: Request) -> Completion:
        """Answers ``request``; calls made at once from several threads (agents thinking in
        parallel) are decoded together."""
        self._load()
        tokens = self.prompt_tokens(request.system, request.user)
        room = self._info.n_ctx - len(tokens)
        if room < min(request.max_tokens, ANSWER_ROOM):
            # Memories are cut to fit (fitting.py): what is left is the task itself.
            raise UserError(
                f"a {request.template!r} prompt of {len(tokens)} tokens leaves no room for "
                f"its answer in the context of {self._info.n_ctx} tokens",
                field="llm.n_ctx",
                fix="raise the context: --n-ctx, or n_ctx under [llm] in a --config file",
            )
        grammar = fixed = None
        if request.schema is not None:
            grammar, fixed = self._grammar(request.schema)
        job = Job(
            tokens=tokens,
            key=request.system,
            kind=request.template,
            grammar=grammar,
            ahead=fixed.reader() if fixed is not None else None,
            max_tokens=min(request.max_tokens, room),
            temperature=request.temperature,
            top_p=request.top_p,
            seed=request.seed,
            presence_penalty=request.presence_penalty,
            avoid=tuple(tuple(self.plain_tokens(text)) for text in request.avoid),
            banned=None if _FAR_EAST.search(request.system + request.user) else self._far_east(),
            unwritten=tuple(word.lower() for word in request.unwritten),
        )
        return self._decoder.complete(job).result

    def _far_east(self) -> np.ndarray:
        with self._lock:
            if self._far_east_tokens is None:
                self._far_east_tokens = far_east_tokens(self._llm)
            return self._far_east_tokens


# Chinese, Japanese and Korean text (U+3000 to U+D7FF): a prompt in English without any gets
# none back. Qwen models switch to Chinese mid-phrase: "the effects of gentrification in低",
# "taking notes on Isabella's邀请", 9 answers in a party window.
_FAR_EAST = re.compile("[\u3000-\ud7ff]")
# The first bytes of those characters in UTF-8: a token holding one starts such a character,
# whole or in part (byte-level vocabularies split rare ones across tokens).
_FAR_EAST_LEADS = frozenset(range(0xE3, 0xEE))


def far_east_tokens(llm) -> np.ndarray:
    """The vocabulary's tokens that write Chinese, Japanese or Korean."""
    import llama_cpp

    vocab = llm._model.vocab
    buffer = ctypes.create_string_buffer(64)
    found = []
    for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        n = llama_cpp.llama_token_to_piece(vocab, token, buffer, 64, 0, False)
        if n > 0 and not _FAR_EAST_LEADS.isdisjoint(buffer.raw[:n]):
            found.append(token)
    return np.array(found, dtype=np.int32)


def _token_text(llm, token: int) -> str:
    return llm._model.token_get_text(token) if token >= 0 else ""


def _context_length(meta: dict[str, str]) -> str | None:
    for key, value in meta.items():
        if key.endswith(".context_length"):
            return value
    return None


@contextlib.contextmanager
def _quiet_stderr():
    """Silence C-level writes to stderr (llama.cpp logs) for the duration."""
    try:
        fd = os.dup(2)
    except OSError:  # no stderr to silence
        yield
        return
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(fd, 2)
            os.close(fd)
