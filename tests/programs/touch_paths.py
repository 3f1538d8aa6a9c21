# A workload for tests/fidelity_test.cc: touches many paths, admitted and
# denied, inside and outside the workspace, and never lets a result change
# what it does next (every error is caught and ignored), so enforce mode and
# audit mode must judge exactly the same calls.
#
#   python3 touch_paths.py ROOT PORT
#
# ROOT holds ws/ (the workspace, the current directory), home/ ($HOME) and
# outside/; PORT is a loopback port no policy of the test admits. Only files
# under ROOT are written or removed: audit mode performs every call.

import os
import socket
import subprocess
import sys

ROOT, PORT = sys.argv[1], int(sys.argv[2])
WS = os.path.join(ROOT, "ws")
HOME = os.environ["HOME"]
OUT = os.path.join(ROOT, "outside")


def attempt(call, *args):
    try:
        call(*args)
    except Exception:
        pass


def read(path):
    with open(path, "rb") as f:
        f.read(16)


def append(path):
    with open(path, "a") as f:
        f.write("x")


def connect(port):
    with socket.socket() as s:
        s.settimeout(5)
        s.connect(("127.0.0.1", port))


def run(argv):
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# Reads and listings first: later calls change the files (in audit mode).
for path in [WS + "/notes.txt", WS + "/.env", WS + "/sub/.env",
             WS + "/key.pem", WS + "/private/secret", HOME + "/.ssh/id_rsa",
             HOME + "/.aws/credentials", OUT + "/outside.txt",
             "/etc/shadow", "/etc/hostname", "/proc/1/environ"]:
    attempt(read, path)
for path in [WS, WS + "/private", HOME + "/.ssh", OUT + "/dir", "/etc"]:
    attempt(os.listdir, path)
for path in [WS + "/notes.txt", WS + "/.env", HOME + "/.ssh/id_rsa",
             OUT + "/outside.txt"]:
    attempt(os.stat, path)
    attempt(os.path.exists, path)
    attempt(os.access, path, os.R_OK)

# Writes and mutations, each on a target of its own.
attempt(append, WS + "/notes.txt")
attempt(append, WS + "/made.txt")
attempt(append, OUT + "/outside.txt")
attempt(append, OUT + "/made.txt")
attempt(append, WS + "/sub/.env")
attempt(append, HOME + "/.ssh/authorized_keys")
attempt(os.mkdir, WS + "/newdir")
attempt(os.mkdir, OUT + "/newdir")
attempt(os.mkdir, WS + "/private/newdir")
attempt(os.unlink, OUT + "/victim")
attempt(os.rename, WS + "/key.pem", WS + "/key2.txt")
attempt(os.rename, OUT + "/moved", WS + "/moved")
attempt(os.chmod, OUT + "/dir/a", 0o600)
attempt(os.symlink, "/etc/shadow", OUT + "/link")

# The network and other programs.
attempt(connect, PORT)
attempt(run, ["/bin/rm", "-f", WS + "/victim"])
attempt(run, ["/bin/cat", WS + "/notes.txt", WS + "/.env"])
print("touched")
