"""The command-line pieces the scripts share: the help check and `--flag VALUE`
options, taken out of the argument list so that what stays is positional, and
the main of the scripts that write vector inputs (`vectors_main`)."""

import random
import sys


def usage_asked(doc):
    """Whether -h or --help is among the arguments (the usage, not an output path); prints
    doc if so."""
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(doc)
        return True
    return False


def take(args, flag, default, conv=int):
    """conv(VALUE) of the first `FLAG VALUE` in args, removing both; default when flag is
    absent."""
    if flag not in args:
        return default
    i = args.index(flag)
    value = conv(args[i + 1])
    del args[i:i + 2]
    return value


def vectors_main(doc, count, seed, vectors):
    """The main of a vector-input script, `OUT [--count N] [--seed S]` (count and seed
    the defaults): writes vectors(random.Random(S), N), one line each, to OUT. Returns the
    exit status: 0, or 2 (after the usage) when OUT is missing or more is given."""
    if usage_asked(doc):
        return 0
    args = sys.argv[1:]
    count = take(args, "--count", count)
    seed = take(args, "--seed", seed)
    if len(args) != 1:
        print(doc, file=sys.stderr)
        return 2
    lines = vectors(random.Random(seed), count)
    with open(args[0], "w") as f:
        f.write("".join(line + "\n" for line in lines))
    print(f"{len(lines)} vectors -> {args[0]}")
    return 0
