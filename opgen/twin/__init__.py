"""The CPU twin: a host emulation of Ascend C kernels and of the ACL/aclnn runtime.

C++ headers live in `include/`, runtime sources in `src/`; `opgen cc` (compiler.py) builds programs
against them, `trace.py` reads the per-launch trace.
"""

from pathlib import Path

TWIN_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = TWIN_DIR / "include"
SOURCE_DIR = TWIN_DIR / "src"
