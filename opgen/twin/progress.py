"""Progress of a long `opgen cc` build on stderr: "opgen cc: compiling 12/40 (leaky_relu_tiling.cpp)".

Nothing is shown during the first `delay` seconds, so cached and short builds stay quiet. On a terminal the
line is rewritten in place and cleared at the end; otherwise one line is printed per finished unit.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


class Progress:
    def __init__(
        self, total: int, label: str = "opgen cc: compiling", delay: float = 2.0, stream: TextIO | None = None
    ):
        self.total = total
        self.label = label
        self.delay = delay
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._shown = False
        self._last_name = ""
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self._timer: threading.Timer | None = None
        if total > 0:
            # Shows the line after `delay` even if no unit has finished by then.
            self._timer = threading.Timer(delay, self._show)
            self._timer.daemon = True
            self._timer.start()

    def _line(self) -> str:
        name = f" ({self._last_name})" if self._last_name else ""
        return f"{self.label} {self.done}/{self.total}{name}"

    def _show(self) -> None:
        with self._lock:
            self._write()

    def _write(self) -> None:
        line = self._line()
        try:
            if self.tty:
                self.stream.write(f"\r\x1b[K{line}")
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            return
        self._shown = True

    def advance(self, name: str = "") -> None:
        with self._lock:
            self.done += 1
            self._last_name = name
            if time.monotonic() - self.started >= self.delay:
                self._write()

    def finish(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            if self._shown and self.tty:
                try:
                    self.stream.write("\r\x1b[K")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
