#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The one QMP client of the test guests (used through scripts/prove/lib-qemu.sh).

usage: qmp.py SOCKET dump FILE [elf|kdump-zlib]
       qmp.py SOCKET quit
       qmp.py SOCKET exec JSON        (prints the command's return value as JSON)

dump: `dump-guest-memory` of the whole guest (paging=false) into FILE, in
QEMU's ELF format (default) or its flattened kdump-zlib format; waits until
the dump is written.  quit: asks QEMU to exit; a QEMU that closes the socket
before answering counts as done.
Exit: 0 done, 1 QMP error (message on stderr), 2 usage, 3 no QMP socket.
"""
import json
import os
import socket
import sys
import time

CONNECT_SECONDS = 10    # QEMU creates the socket at start-up


class QmpError(Exception):
    pass


class Qmp:
    def __init__(self, path):
        deadline = time.monotonic() + CONNECT_SECONDS
        while True:
            self.sock = socket.socket(socket.AF_UNIX)
            try:
                self.sock.connect(path)
                break
            except OSError as e:
                self.sock.close()
                if time.monotonic() >= deadline:
                    raise ConnectionError("qmp: cannot connect to %s: %s" % (path, e))
                time.sleep(0.2)
        self.f = self.sock.makefile("rw")
        if "QMP" not in self._read():
            raise QmpError("qmp: %s: no QMP greeting" % path)
        self.execute("qmp_capabilities")

    def _read(self):
        line = self.f.readline()
        if not line:
            raise EOFError("qmp: QEMU closed the connection")
        return json.loads(line)

    def execute(self, name, arguments=None):
        """Run one command; events that arrive meanwhile are skipped."""
        cmd = {"execute": name}
        if arguments:
            cmd["arguments"] = arguments
        self.f.write(json.dumps(cmd) + "\n")
        self.f.flush()
        while True:
            r = self._read()
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise QmpError("qmp: %s: %s: %s" % (name, r["error"].get("class"),
                                                   r["error"].get("desc")))

    def close(self):
        self.sock.close()


def main(argv):
    if len(argv) < 3 or argv[2] not in ("dump", "quit", "exec"):
        print(__doc__, file=sys.stderr)
        return 2
    path, what, args = argv[1], argv[2], argv[3:]
    if what == "dump" and not (1 <= len(args) <= 2 and
                               (len(args) == 1 or args[1] in ("elf", "kdump-zlib"))):
        print("qmp.py: dump FILE [elf|kdump-zlib]", file=sys.stderr)
        return 2
    if what == "exec" and len(args) != 1:
        print("qmp.py: exec JSON", file=sys.stderr)
        return 2
    try:
        q = Qmp(path)
    except (ConnectionError, EOFError, QmpError) as e:
        print(e, file=sys.stderr)
        return 3
    try:
        if what == "dump":
            fmt = args[1] if len(args) > 1 else "elf"
            q.execute("dump-guest-memory", {"paging": False,
                                            "protocol": "file:" + os.path.abspath(args[0]),
                                            "format": fmt})
        elif what == "quit":
            try:
                q.execute("quit")
            except EOFError:
                pass
        else:
            cmd = json.loads(args[0])
            print(json.dumps(q.execute(cmd["execute"], cmd.get("arguments"))))
    except (QmpError, EOFError, ValueError, KeyError) as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        q.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
