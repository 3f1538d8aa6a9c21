# A workload for tests/fidelity_test.cc whose control flow depends on a
# refusal, as much real code's does: when the first denied read fails it
# stops; when it succeeds (audit mode performs it) it goes on to touch more
# denied paths. Enforce and audit mode then judge different calls by nature;
# only their first refusal is the same.
#
#   python3 stop_at_refusal.py ROOT

import os
import sys

ROOT = sys.argv[1]
HOME = os.environ["HOME"]

try:
    with open(HOME + "/.ssh/id_rsa") as f:
        key = f.read()
except OSError:
    print("refused; stopping")
    sys.exit(0)

print("read the key; going on")
for path in [HOME + "/.aws/credentials", ROOT + "/ws/.env",
             ROOT + "/outside/outside.txt"]:
    try:
        with open(path) as f:
            f.read()
    except OSError:
        pass
