"""The long fuzz run over every file reader: each FuzzTarget in tests/fuzz/test_fuzz_*.py, N cases each (the suite
runs a few hundred). Prints one line of outcome counts per target and every failure with its replay command.

    python tools/fuzz_readers.py                 # 3000 cases per target, seed 1
    python tools/fuzz_readers.py -n 500 -s 7 -k keras
"""
import argparse
import glob
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--cases", type=int, default=3000, help="cases per target")
    ap.add_argument("-s", "--seed", type=int, default=1)
    ap.add_argument("-k", "--match", default="", help="only targets whose module or name holds this")
    ap.add_argument("--open", action="store_true", help="also the open findings (a module's OPEN_TARGETS)")
    args = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    from tests.fuzz.harness import run_fuzz

    total, failed = 0, 0
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "fuzz", "test_fuzz_*.py"))):
        name = "tests.fuzz." + os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        for target in list(mod.TARGETS) + (list(getattr(mod, "OPEN_TARGETS", [])) if args.open else []):
            if args.match and args.match not in name and args.match not in target.name:
                continue
            report = run_fuzz(target, n=args.cases, seed=args.seed)
            total += report.cases
            failed += len(report.failures)
            print(report.summary(limit=len(report.failures)), flush=True)
    print(f"{total} cases, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
