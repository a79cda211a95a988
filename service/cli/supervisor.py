"""The plan worker that ``buyrent serve`` starts, restarted when it dies.

When that worker died, pages answered 200 and plans stayed queued forever (issue 40). A thread
of the serve process starts ``buyrent worker`` and waits on it; when it exits (killed, crashed)
it is started again after a back-off that doubles from 1 s to 60 s and starts again from 1 s
once a worker has lived a minute, so a worker that cannot start does not spin. Each restart is
said on stderr with the exit code. The worker dies with the serve process (PDEATHSIG), and the
thread stops restarting when serve exits.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Callable, Optional, Sequence

FIRST_DELAY = 1.0
MAX_DELAY = 60.0
HEALTHY_SECONDS = 60.0    # a worker that lived this long restarts the back-off


class Supervisor:
    """Keep one child process running: start it, and start it again when it exits.

    Parameters
    ----------
    argv : sequence of str
        The command.
    preexec : callable, optional
        Run in the child before it execs (``die_with_parent``).
    say : callable, default print to stderr
        Where each (re)start is said.
    """

    def __init__(self, argv: Sequence[str], preexec: Optional[Callable[[], None]] = None,
                 say: Callable[[str], None] = lambda text: print(text, file=sys.stderr,
                                                                  flush=True)):
        self.argv, self.preexec, self.say = list(argv), preexec, say
        self.process: Optional[subprocess.Popen] = None
        self.restarts = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="worker-supervisor")
        self._started = threading.Event()

    def start(self) -> "Supervisor":
        """Start the child and the thread that watches it; returns when the child runs."""
        self._thread.start()
        self._started.wait()
        return self

    def _spawn(self) -> subprocess.Popen:
        self.process = subprocess.Popen(self.argv, preexec_fn=self.preexec)
        return self.process

    def _run(self) -> None:
        delay = FIRST_DELAY
        while not self._stop.is_set():
            began = time.monotonic()
            proc = self._spawn()
            self._started.set()
            code = proc.wait()
            if self._stop.is_set():
                return
            if time.monotonic() - began >= HEALTHY_SECONDS:
                delay = FIRST_DELAY
            self.say(f"plan worker (pid {proc.pid}) exited with code {code}; starting it "
                     f"again in {delay:g} s")
            if self._stop.wait(delay):
                return
            delay = min(delay * 2, MAX_DELAY)
            self.restarts += 1

    def stop(self) -> None:
        """Stop restarting and end the child."""
        self._stop.set()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
