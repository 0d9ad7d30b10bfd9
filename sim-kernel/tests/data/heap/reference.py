"""Expected outputs of heap.cu's kernels, from the CUDA source's meaning
(not from the simulator): python3 reference.py writes the .bin files."""
import struct

BLOCKS, THREADS = 4, 64


def n_of(t):
    return 4 * (1 + t % 5)


sums, again = [], []
for b in range(BLOCKS):
    for x in range(THREADS):
        u = b * THREADS + (x + 1) % THREADS
        sums.append(sum(u * 16 + i for i in range(n_of(u))))
        again.append(1)
open("sums.expected.bin", "wb").write(struct.pack(f"<{len(sums)}i", *sums))
open("again.expected.bin", "wb").write(struct.pack(f"<{len(again)}i", *again))
# exhaust: a 4 MiB block, 6 MiB NULL, 2 MiB block, 3 MiB NULL, the freed
# 4 MiB reused for 3 MiB, 5 + 9, 40 + 2 + 1000.
out = [1, 1, 1, 1, 1, 1, 14, 1042]
open("exhaust.expected.bin", "wb").write(struct.pack("<8q", *out))
