"""A process killed while adding memories loses at most the record being written."""

import json
import os
import signal
import subprocess
import sys
import time

PRELUDE = """
import json, sys, zlib
from datetime import datetime, timedelta
from pathlib import Path
import numpy as np
from simulacra.memory import MemoryStore, NewMemory
from simulacra.settings import RetrievalSettings

class Embedder:
    identity = "crc"
    def embed(self, texts):
        out = np.zeros((len(texts), 32), np.float32)
        for i, t in enumerate(texts):
            out[i, zlib.crc32(t.encode()) % 32] = 1.0
        return out

store = MemoryStore(Path(sys.argv[1]))
stream = store.stream("Klaus Mueller", Embedder(), RetrievalSettings())
"""

WRITER = (
    PRELUDE
    + """
t0 = datetime(2023, 2, 13, 8)
i = len(stream)
while True:
    i += 1
    stream.add([NewMemory(f"Klaus observes event {i}", importance=1 + i % 10)],
               t0 + timedelta(minutes=i))
    store.commit()
    print(i, flush=True)
"""
)

READER = (
    PRELUDE
    + """
hits = stream.retrieve("event", datetime(2023, 2, 14), k=3)
print(json.dumps({"ids": [r.id for r in stream], "vectors": stream._vectors.count(),
                  "hits": len(hits)}))
"""
)


def kill_while_writing(path, after: int) -> int:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    last = 0
    start = time.monotonic()
    while last < after and time.monotonic() - start < 120:
        line = proc.stdout.readline()
        if not line:
            break
        last = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return last


def reopen(path) -> dict:
    # A fresh process, as a user's next command would be: Chroma allows one writer process.
    done = subprocess.run([sys.executable, "-c", READER, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_sigkill_mid_write_never_corrupts_the_store(tmp_path):
    committed = 0
    for round_, after in enumerate((30, 25, 40)):
        acknowledged = kill_while_writing(tmp_path, committed + after)
        found = reopen(tmp_path)
        ids = found["ids"]
        # Everything acknowledged is there; at most the record in flight beyond it.
        assert acknowledged <= len(ids) <= acknowledged + 1, round_
        assert ids == list(range(1, len(ids) + 1))
        assert found["vectors"] == len(ids)
        assert found["hits"] == 3
        committed = len(ids)
