"""A game engine run as a child process over a line protocol (Gomocup, UCCI): the part the
measurement scripts share. Each protocol's class subclasses it with its hand-shake and its
questions."""

import shlex
import subprocess


class EngineProcess:
    """The engine `cmd` (a shell-style command line), stdin and stdout piped, stderr dropped."""

    #: What `read_until` calls the process in its error.
    what = "the engine"
    #: The line that asks the engine to end (`close`).
    goodbye = "quit"

    def __init__(self, cmd: str):
        self.p = subprocess.Popen(
            shlex.split(cmd),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def send(self, line: str) -> None:
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read_until(self, done) -> list[str]:
        """The lines read up to and including the first for which `done` is true; raises
        `RuntimeError` with the last lines when the engine's output ends first."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.what} ended: " + " | ".join(lines[-5:]))
            line = line.strip()
            lines.append(line)
            if done(line):
                return lines

    def close(self) -> None:
        """Asks the engine to end, and kills it when it does not within 5 s."""
        try:
            self.send(self.goodbye)
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()
