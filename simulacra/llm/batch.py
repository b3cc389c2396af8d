"""Many answers decoded at once in one llama.cpp context.

On a CPU a forward pass reads every weight once whether it carries one token or several, so
residents whose calls are under way together share passes: each call is a sequence of its
own in one context (a unified KV cache), and every pass carries the next token of each
sequence that is generating plus the prompt tokens of those still reading their prompt.

A call's prompt starts from the longest prefix of it already in the cache: its own sequence's
last prompt (an agent asks again with the same system text), another sequence's (the shared
preamble), or a state saved after an earlier call of the same agent and template (its fixed
instructions come before what changes), restored in a copy of megabytes instead of hundreds
of prompt tokens read again.

Sampling checks the sampled token against the grammar and masks the whole vocabulary only
when the grammar rejects it (as llama.cpp's own common sampler does): the grammar otherwise
costs more than the forward pass. An answer ends as soon as its grammar is complete.

Answers that copy their prompt (a place's address, a name, a plan item) are drafted from it:
where the answer's last tokens occur earlier in the prompt or the answer, the tokens that
followed them there ride along in the next pass, and each is kept only while the token
sampled at its position is that very token (prompt-lookup decoding). What the answer's schema
fixes ahead (its keys, a field's lead, the rest of an enum option; see fixedtext.py) is
drafted the same way, before anything is looked up. A token is still sampled once per position
by the same rule, so drafting changes which tokens share a pass, not how a token is chosen;
but a larger pass sums in another order, and a near tie can fall the other way (with the fixed
text drafted, 10 of 24 greedy answers of the 1.5B differed somewhere in their words).

Answers can depend on which calls shared their passes (the floating-point sums of a pass
differ with its size); the replay cache makes a rerun free and identical.
"""

from __future__ import annotations

import ctypes
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from simulacra.llm.completion import Completion
from simulacra.llm.fixedtext import Ahead

# Same sampling as llama-cpp-python's create_completion, which earlier answers were made with.
TOP_K = 40
MIN_P = 0.05
PENALTY_LAST_N = 64
# A saved prefix is worth restoring only when it saves more than copying it costs.
MIN_RESTORE = 32
# Prompt lookup: the answer's last LOOKUP_NGRAM tokens are looked for in what came before, and
# up to LOOKAHEAD of the tokens that followed them are drafted. A pass over 1 token takes 68 ms
# on two cores, over 8 tokens 160 ms: a call stops drafting once too few drafts are kept.
LOOKUP_NGRAM = 3
# An answer may copy at most AVOID_RUN - 1 tokens in a row of a text it is to avoid: enough for
# a name or a time ("at Hobbs Cafe at 5pm"), too few for a sentence said before.
AVOID_RUN = 6
LOOKAHEAD = 6
FIXED_AHEAD = 16  # tokens of an answer's fixed text drafted at once (a key and a lead)
MIN_KEPT_SHARE = 0.3
DRAFT_TRIAL = 24  # drafted tokens before the share kept is judged, for a call and a template

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])


@dataclass
class Job:
    """One call: its prompt tokens and how to sample its answer."""

    tokens: list[int]
    key: str  # whose call: the system text (an agent's calls go to the same sequence)
    kind: str  # the template: its state is kept for the agent's next call of the same kind
    grammar: str | None
    max_tokens: int
    temperature: float
    top_p: float
    seed: int
    presence_penalty: float = 0.0
    avoid: tuple[tuple[int, ...], ...] = ()  # token runs the answer may not copy AVOID_RUN of
    banned: np.ndarray | None = None  # tokens never sampled (a script the prompt has none of)
    unwritten: tuple[str, ...] = ()  # words the answer may not write, in lower case
    ahead: Ahead | None = None  # what the answer's schema fixes next (drafted)
    # filled while decoding
    answer: list[int] = field(default_factory=list)
    reused: int = 0
    evicted: int = 0  # prompt tokens a saved state dropped for room would have spared
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    sample_seconds: float = 0.0
    resampled: int = 0  # tokens the grammar rejected, sampled again under the mask
    drafted: int = 0  # tokens drafted from the prompt (prompt lookup)
    word: str = ""  # the letters of the word the answer ends in (for ``unwritten``)
    kept: int = 0  # drafted tokens that were the ones sampled
    fixed_drafted: int = 0  # of those drafted and kept, the schema's fixed text
    fixed_kept: int = 0
    result: Completion | None = None
    error: BaseException | None = None
    started: float = 0.0


@dataclass
class _Slot:
    seq: int
    held: list[int] = field(default_factory=list)  # tokens whose KV the sequence holds
    key: str | None = None
    job: Job | None = None
    pending: list[int] = field(default_factory=list)  # prompt tokens still to read
    last_used: int = 0
    chain: object = None
    grammar: object = None
    draft: list[int] = field(default_factory=list)  # drafted tokens in the current pass
    draft_fixed: bool = False  # the draft is the schema's fixed text, not a lookup


class BatchDecoder:
    """Decodes up to ``n_parallel`` calls together. ``complete`` is called from any thread:
    the first caller decodes for everyone until no call is left, the others wait."""

    def __init__(
        self,
        llm,
        *,
        n_parallel: int,
        n_ctx: int,
        n_batch: int,
        n_threads: int,
        saved_bytes: int,
        detokenize,
        tokenize,
        lookahead: int = LOOKAHEAD,
    ) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self.n_parallel = n_parallel
        self.lookahead = lookahead
        # Per template, tokens drafted and kept so far: answers that copy little of their
        # prompt (an emoji word, a state) stop being drafted for after a trial.
        self._drafts: dict[str, list[int]] = {}
        self.n_batch = n_batch
        self._detokenize = detokenize
        self._tokenize = tokenize
        self._pieces: dict[int, str] = {}  # token -> its text, for the answers' fixed text
        self._fixed_tokens: dict[str, list[int]] = {}
        params = llama_cpp.llama_context_params.from_buffer_copy(llm.context_params)
        params.n_ctx = n_ctx * n_parallel
        params.n_batch = params.n_ubatch = n_batch
        params.n_seq_max = n_parallel
        params.kv_unified = True  # sequences share the preamble's cells
        # Without flash attention a pass attends over every cell of the unified cache, masked:
        # with other residents' sequences held, a prompt read at 34 tokens/s instead of 52.
        # Flash attention skips the masked cells; AUTO uses it where the backend has it.
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO
        params.n_threads = params.n_threads_batch = n_threads
        self._ctx = llama_cpp.llama_init_from_model(llm._model.model, params)
        if self._ctx is None:
            raise RuntimeError("llama.cpp could not create a context for batched decoding")
        self._mem = llama_cpp.llama_get_memory(self._ctx)
        self._vocab = llama_cpp.llama_model_get_vocab(llm._model.model)
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        eot = llama_cpp.llama_vocab_eot(self._vocab)
        self._end = eot if eot >= 0 else llama_cpp.llama_vocab_eos(self._vocab)
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
        self._slots = [_Slot(seq=i) for i in range(n_parallel)]
        self._saved = SavedPrefixes(saved_bytes)
        self._ids = np.arange(self.n_vocab, dtype=np.int32)
        self._cands = np.zeros(self.n_vocab, dtype=_TOKEN_DATA)
        self._one = np.zeros(1, dtype=_TOKEN_DATA)
        self._cond = threading.Condition()
        self._waiting: list[Job] = []
        self._leading = False
        self._clock = 0

    # -- the calling side ------------------------------------------------------------------

    def complete(self, job: Job) -> Job:
        with self._cond:
            self._waiting.append(job)
            while job.result is None and job.error is None:
                if self._leading:
                    self._cond.wait()
                    continue
                self._leading = True
                self._cond.release()
                try:
                    self._lead()
                finally:
                    self._cond.acquire()
                    self._leading = False
                    self._cond.notify_all()
        if job.error is not None:
            raise job.error
        return job

    def _lead(self) -> None:
        while True:
            with self._cond:
                while self._waiting and self._free_slot_exists():
                    job = self._waiting.pop(0)
                    try:
                        self._admit(job)
                    except Exception as e:  # noqa: BLE001 - raised in the thread that asked
                        job.error = e
                        self._cond.notify_all()
            if not any(s.job for s in self._slots):
                return
            try:
                self._step()
            except BaseException as e:  # noqa: BLE001 - every call under way hears of it
                self._fail_all(e)
                raise

    def _fail_all(self, error: BaseException) -> None:
        with self._cond:
            for slot in self._slots:
                if slot.job is not None:
                    slot.job.error = error
                    self._release(slot, keep=False)
            self._cond.notify_all()

    def _free_slot_exists(self) -> bool:
        return any(s.job is None for s in self._slots)

    # -- admitting a call: the longest cached prefix ---------------------------------------

    def _admit(self, job: Job) -> None:
        lib, tokens = self._lib, job.tokens
        limit = len(tokens) - 1  # the last prompt token is read again for its logits
        free = [s for s in self._slots if s.job is None]
        # The agent's own sequence if it is free, else the least recently used: a prefix
        # shared with another agent (the preamble) is copied, not taken from it.
        mine = [s for s in free if s.key == job.key]
        own = mine[0] if mine else min(free, key=lambda s: s.last_used)
        have = min(_common(own.held, tokens), limit)
        donor = max(self._slots, key=lambda s: _common(s.held, tokens))
        shared = min(_common(donor.held, tokens), limit)
        saved = self._saved.best(tokens)
        restore = min(_common(saved[0], tokens), limit) if saved else 0
        if restore > max(have, shared) + MIN_RESTORE:
            if self._saved.restore(self, saved, own.seq):
                own.held, have = list(saved[0]), restore
        elif shared > have and donor is not own:
            lib.llama_memory_seq_rm(self._mem, own.seq, -1, -1)
            lib.llama_memory_seq_cp(self._mem, donor.seq, own.seq, 0, shared)
            own.held, have = tokens[:shared], shared
        could = min(self._saved.longest_ever(tokens), limit)
        if could > have + MIN_RESTORE:
            job.evicted = could - have
        lib.llama_memory_seq_rm(self._mem, own.seq, have, -1)
        own.held = own.held[:have]
        own.key, own.job = job.key, job
        own.pending = tokens[have:]
        job.reused, job.started = have, time.perf_counter()
        self._clock += 1
        own.last_used = self._clock
        own.chain, own.grammar = self._samplers(job)

    def _samplers(self, job: Job):
        lib = self._lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        if job.presence_penalty:
            lib.llama_sampler_chain_add(
                chain,
                lib.llama_sampler_init_penalties(
                    self.n_vocab, PENALTY_LAST_N, 1.0, 0.0, job.presence_penalty
                ),
            )
        if job.temperature <= 0.0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
        else:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(TOP_K))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(job.top_p, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_min_p(MIN_P, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(job.temperature))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(job.seed))
        grammar = None
        if job.grammar is not None:
            grammar = lib.llama_sampler_init_grammar(
                self._vocab, job.grammar.encode("utf-8"), b"root"
            )
            if not grammar:
                lib.llama_sampler_free(chain)
                raise ValueError("llama.cpp could not parse the answer's grammar")
        return chain, grammar

    # -- one forward pass for every call under way -----------------------------------------

    def _step(self) -> None:
        lib, batch = self._lib, self._batch
        n = 0
        reading: dict[int, int] = {}  # slot index -> prompt tokens in this pass
        outputs: list[tuple[_Slot, int]] = []
        generating = [s for s in self._slots if s.job is not None and not s.pending]
        for slot in generating:
            n = self._put(slot, slot.job.answer[-1], n, logits=True)
            outputs.append((slot, n - 1))
            # Drafts take at most half the batch, so prompts still being read go on.
            n = self._put_draft(slot, n, self.n_batch // 2)
        for i, slot in enumerate(self._slots):
            if slot.job is None or not slot.pending:
                continue
            take = slot.pending[: self.n_batch - n]
            if not take:
                break
            for j, token in enumerate(take):
                last = j == len(take) - 1 and len(take) == len(slot.pending)
                n = self._put(slot, token, n, logits=last)
            slot.pending = slot.pending[len(take) :]
            reading[i] = len(take)
            if not slot.pending:
                outputs.append((slot, n - 1))
                # The answer's opening ('{"ratings": [{"level": "') rides with the prompt's end.
                n = self._put_draft(slot, n, self.n_batch)
        batch.n_tokens = n
        start = time.perf_counter()
        status = lib.llama_decode(self._ctx, batch)
        if status == 1:  # no room in the KV cache: drop what idle sequences hold, retry
            for slot in self._slots:
                if slot.job is None and slot.held:
                    lib.llama_memory_seq_rm(self._mem, slot.seq, -1, -1)
                    slot.held, slot.key = [], None
            status = lib.llama_decode(self._ctx, batch)
        if status != 0:
            raise RuntimeError(f"llama.cpp could not decode a batch (status {status})")
        seconds = time.perf_counter() - start
        for i, count in reading.items():
            self._slots[i].job.prefill_seconds += seconds * count / n
            self._slots[i].job.decode_seconds += seconds * len(self._slots[i].draft) / n
        for slot in generating:
            slot.job.decode_seconds += seconds * (1 + len(slot.draft)) / n
        for slot, index in outputs:
            self._sample(slot, index)

    def _put_draft(self, slot: _Slot, n: int, limit: int) -> int:
        """Puts the slot's draft in the batch (at most up to ``limit`` tokens in all)."""
        draft, slot.draft_fixed = self._draft(slot.job)
        slot.draft = draft[: max(0, limit - n)]
        for token in slot.draft:
            n = self._put(slot, token, n, logits=True)
        slot.job.drafted += len(slot.draft)
        return n

    def _put(self, slot: _Slot, token: int, n: int, *, logits: bool) -> int:
        batch = self._batch
        batch.token[n] = token
        batch.pos[n] = len(slot.held)
        batch.n_seq_id[n] = 1
        batch.seq_id[n][0] = slot.seq
        batch.logits[n] = logits
        slot.held.append(token)
        return n + 1

    def _sample(self, slot: _Slot, index: int) -> None:
        """The next token at ``index``, then one at each drafted token's position for as long
        as the token sampled before it was that draft; the KV cells of drafts not kept go."""
        job, draft = slot.job, slot.draft
        slot.draft = []
        kept = 0
        done = self._sample_one(slot, index)
        while not done and kept < len(draft) and job.answer[-1] == draft[kept]:
            kept += 1
            done = self._sample_one(slot, index + kept)
        job.kept += kept
        if slot.draft_fixed:
            job.fixed_drafted += len(draft)
            job.fixed_kept += kept
        unused = len(draft) - kept
        if unused:
            self._lib.llama_memory_seq_rm(self._mem, slot.seq, len(slot.held) - unused, -1)
            del slot.held[-unused:]
        if done:
            self._finish(slot)

    def _sample_one(self, slot: _Slot, index: int) -> bool:
        """Samples, checks against the grammar and appends one token; True once the answer
        is complete."""
        lib, job = self._lib, slot.job
        start = time.perf_counter()
        logits = np.ctypeslib.as_array(
            lib.llama_get_logits_ith(self._ctx, index), shape=(self.n_vocab,)
        )
        raw = logits
        copying = self._spellings(_copying(job.answer, job.avoid))
        if copying or job.banned is not None:
            logits = logits.copy()  # llama.cpp's buffer is read again for a drafted position
            if job.banned is not None:
                logits[job.banned] = -np.inf
            logits[list(copying)] = -np.inf
        token = self._choose(slot, logits, raw)
        for _ in range(UNWRITTEN_TRIES):
            if not _writes_unwritten(job.word, self._piece(token), job.unwritten):
                break
            logits = logits.copy() if logits is raw else logits
            logits[token] = -np.inf
            token = self._choose(slot, logits, raw)
        lib.llama_sampler_accept(slot.chain, token)
        done = bool(lib.llama_vocab_is_eog(self._vocab, token))
        if not done:
            job.answer.append(token)
            if job.unwritten:
                job.word = _LAST_WORD.search(job.word + self._piece(token)).group()
            if job.ahead is not None:
                job.ahead.feed(self._piece(token))
            if slot.grammar is not None:
                lib.llama_sampler_accept(slot.grammar, token)
                # Complete once the grammar would take the end: only blanks could follow.
                done = self._allowed(slot.grammar, self._end)
        job.sample_seconds += time.perf_counter() - start
        return done or len(job.answer) >= job.max_tokens

    def _choose(self, slot: _Slot, logits: np.ndarray, raw: np.ndarray) -> int:
        """A token sampled from ``logits`` that the grammar allows."""
        token = self._pick(slot.chain, logits, mask=None)
        if slot.grammar is not None and not self._allowed(slot.grammar, token):
            slot.job.resampled += 1
            token = self._pick(slot.chain, logits, mask=slot.grammar)
            if logits is not raw and not self._allowed(slot.grammar, token):
                # The grammar allows only tokens the answer was to avoid (an enum option that
                # a memo to avoid copying also holds): the grammar is a must, avoiding is not.
                # Sampled from nothing allowed, the token would abort llama.cpp's grammar.
                token = self._pick(slot.chain, raw, mask=slot.grammar)
        return token

    def _draft(self, job: Job) -> tuple[list[int], bool]:
        """The tokens the answer's schema fixes next, else those that followed the answer's
        last few tokens where they last occurred before, in the prompt or the answer itself;
        and whether they are the fixed ones."""
        left = job.max_tokens - len(job.answer) - 1
        if self.lookahead <= 0:
            return [], False
        fixed = job.ahead.text() if job.ahead is not None else ""
        if fixed and left > 0:
            return self._tokens_of(fixed)[: min(FIXED_AHEAD, left)], True
        return self._looked_up(job, min(self.lookahead, left)), False

    def _looked_up(self, job: Job, room: int) -> list[int]:
        if room <= 0 or len(job.answer) < LOOKUP_NGRAM:
            return []
        looked = (job.drafted - job.fixed_drafted, job.kept - job.fixed_kept)
        for drafted, kept in (looked, self._drafts.get(job.kind, (0, 0))):
            if drafted >= DRAFT_TRIAL and kept < MIN_KEPT_SHARE * drafted:
                return []
        seen = job.tokens + job.answer
        tail = seen[-LOOKUP_NGRAM:]
        last = len(seen) - LOOKUP_NGRAM
        at = last - 1
        while at >= 0:
            try:
                at = _rindex(seen, tail[0], at)
            except ValueError:
                return []
            if seen[at : at + LOOKUP_NGRAM] == tail:
                return seen[at + LOOKUP_NGRAM : at + LOOKUP_NGRAM + room]
            at -= 1
        return []

    def _piece(self, token: int) -> str:
        piece = self._pieces.get(token)
        if piece is None:
            piece = self._pieces[token] = self._detokenize([token])
        return piece

    def _spellings(self, tokens: set[int]) -> set[int]:
        """``tokens`` and the first token of each one's word with and without the space before
        it: kept from " Day" after "Valentine's", the 1.5B wrote "Valentine'sDay" ("Oak
        HillCollege", "from5pm"), the copy a reader sees all the same."""
        spelt = set(tokens)
        for token in tokens:
            word = self._piece(token).lstrip()
            if word:
                spelt.update(self._tokens_of(form)[0] for form in (word, " " + word))
        return spelt

    def _tokens_of(self, text: str) -> list[int]:
        tokens = self._fixed_tokens.get(text)
        if tokens is None:
            if len(self._fixed_tokens) > 4096:  # keys and leads: a town's few hundred
                self._fixed_tokens.clear()
            tokens = self._fixed_tokens[text] = self._tokenize(text)
        return tokens

    def _pick(self, chain, logits: np.ndarray, *, mask) -> int:
        lib, cands = self._lib, self._cands
        cands["id"] = self._ids
        cands["logit"] = logits
        cands["p"] = 0.0
        array = lib.llama_token_data_array(
            data=cands.ctypes.data_as(lib.llama_token_data_p),
            size=self.n_vocab,
            selected=-1,
            sorted=False,
        )
        if mask is not None:
            lib.llama_sampler_apply(mask, ctypes.byref(array))
        lib.llama_sampler_apply(chain, ctypes.byref(array))
        return int(array.data[array.selected].id)

    def _allowed(self, grammar, token: int) -> bool:
        lib, one = self._lib, self._one
        one["id"], one["logit"], one["p"] = token, 0.0, 0.0
        array = lib.llama_token_data_array(
            data=one.ctypes.data_as(lib.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        lib.llama_sampler_apply(grammar, ctypes.byref(array))
        return bool(np.isfinite(one["logit"][0]))

    def _finish(self, slot: _Slot) -> None:
        job = slot.job
        text = self._detokenize(job.answer)
        job.result = Completion(
            text=text,
            prompt_tokens=len(job.tokens),
            reused_tokens=job.reused,
            evicted_tokens=job.evicted,
            generated_tokens=len(job.answer),
            seconds=time.perf_counter() - job.started,
            prefill_seconds=job.prefill_seconds,
            decode_seconds=job.decode_seconds,
            sample_seconds=job.sample_seconds,
            resampled_tokens=job.resampled,
            drafted_tokens=job.drafted,
            kept_tokens=job.kept,
            fixed_drafted_tokens=job.fixed_drafted,
            fixed_kept_tokens=job.fixed_kept,
        )
        self._saved.save(self, slot, f"{job.kind}\0{job.key}")
        tally = self._drafts.setdefault(job.kind, [0, 0])
        tally[0] += job.drafted - job.fixed_drafted
        tally[1] += job.kept - job.fixed_kept
        with self._cond:
            self._release(slot, keep=True)
            self._cond.notify_all()

    def _release(self, slot: _Slot, *, keep: bool) -> None:
        lib = self._lib
        for sampler in (slot.chain, slot.grammar):
            if sampler:
                lib.llama_sampler_free(sampler)
        slot.chain = slot.grammar = None
        if not keep:  # a failed call: what the sequence holds is not known to be whole
            lib.llama_memory_seq_rm(self._mem, slot.seq, -1, -1)
            slot.held, slot.key = [], None
        slot.job, slot.pending, slot.draft = None, [], []


class SavedPrefixes:
    """KV states after calls, one per agent and template, least recently used dropped first.
    The tokens of every state ever saved are kept too (a few KB each against tens of MB of KV),
    so a call can tell what a state dropped for room would have spared it: the sign that
    ``llm.kv_cache_mb`` is too small for the town."""

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity = capacity_bytes
        self._states: OrderedDict[str, tuple[list[int], object, int]] = OrderedDict()
        self._ever: dict[str, list[int]] = {}

    def save(self, decoder: BatchDecoder, slot: _Slot, name: str) -> None:
        lib = decoder._lib
        if self.capacity <= 0 or not slot.held:
            return
        size = lib.llama_state_seq_get_size(decoder._ctx, slot.seq)
        buffer = (ctypes.c_uint8 * size)()
        used = lib.llama_state_seq_get_data(decoder._ctx, buffer, size, slot.seq)
        self._states.pop(name, None)
        self._states[name] = (list(slot.held), buffer, used)
        self._ever[name] = self._states[name][0]
        while self._states and sum(s[2] for s in self._states.values()) > self.capacity:
            self._states.popitem(last=False)

    def best(self, tokens: list[int]) -> tuple[list[int], object, int] | None:
        if not self._states:
            return None
        return max(self._states.values(), key=lambda s: _common(s[0], tokens))

    def longest_ever(self, tokens: list[int]) -> int:
        """The longest prefix of ``tokens`` a state dropped for room held (those kept are
        ``best``'s): nothing to compare, and no work on the hot path, while none was dropped."""
        dropped = (held for name, held in self._ever.items() if name not in self._states)
        return max((_common(held, tokens) for held in dropped), default=0)

    def restore(self, decoder: BatchDecoder, saved, seq: int) -> bool:
        held, buffer, used = saved
        lib = decoder._lib
        if lib.llama_state_seq_set_data(decoder._ctx, buffer, used, seq) != used:
            lib.llama_memory_seq_rm(decoder._mem, seq, -1, -1)
            return False
        return True


# A word an answer may not write is kept out by its first UNWRITTEN_LETTERS letters, whatever
# the tokens that spell them: the 1.5B writes " Klaus" as one token, and "Klaus" at the start of
# a line as "K" and "laus". Fewer letters would keep out words that begin alike ("Is").
UNWRITTEN_LETTERS = 4
UNWRITTEN_TRIES = 8  # tokens sampled again before one that writes such a word is let through
_LAST_WORD = re.compile(r"[^\W\d_]*$")
_WORD = re.compile(r"[^\W\d_]+")


def _writes_unwritten(word: str, piece: str, unwritten: tuple[str, ...]) -> bool:
    """Whether ``piece``, after an answer that ends in the letters ``word``, writes the first
    letters of one of the ``unwritten`` words (or the whole of a shorter one): a word that
    begins so is that word, or a slip of its spelling."""
    if not unwritten:
        return False
    text = word + piece
    for run in _WORD.finditer(text):
        if run.end() <= len(word):
            continue  # written before this piece
        letters = run.group().lower()
        for name in unwritten:
            if len(letters) >= min(UNWRITTEN_LETTERS, len(name)) and name.startswith(letters):
                return True
    return False


def _copying(answer: list[int], avoid: tuple[tuple[int, ...], ...]) -> set[int]:
    """The tokens that would make the answer's last AVOID_RUN - 1 tokens, and the next, a run
    of one of the texts to avoid."""
    n = AVOID_RUN - 1
    if not avoid or len(answer) < n:
        return set()
    tail = tuple(answer[-n:])
    return {
        text[i + n]
        for text in avoid
        for i in range(len(text) - n)
        if text[i] == tail[0] and text[i : i + n] == tail
    }


def _rindex(tokens: list[int], token: int, end: int) -> int:
    """The last position of ``token`` at or before ``end``."""
    for i in range(end, -1, -1):
        if tokens[i] == token:
            return i
    raise ValueError(token)


def _common(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a binary search on list slices: prompts are thousands of tokens
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
