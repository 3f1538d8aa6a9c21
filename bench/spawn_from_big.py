"""bench/run's spawn1g workload: subprocess.run(["/bin/true"]) from a
Python that holds (and has touched) SIZE_MB of memory; prints the mean
milliseconds per spawn, without Python's start or the memory's filling."""
import subprocess
import sys
import time

size_mb, spawns = int(sys.argv[1]), int(sys.argv[2])
held = bytearray(size_mb << 20)
for i in range(0, len(held), 4096):
    held[i] = 1
start = time.perf_counter()
for _ in range(spawns):
    subprocess.run(["/bin/true"], check=True)
print("%.3f" % ((time.perf_counter() - start) / spawns * 1000))
