"""python3 -m fplab --version | --formats | --schemes"""
import sys

import fplab


def main(argv):
    if argv in (["--version"], ["-V"]):
        print("fplab %s" % fplab.__version__)
        return 0
    if argv == ["--formats"]:
        print("\n".join(fplab.formats()))
        return 0
    if argv == ["--schemes"]:
        print("\n".join(fplab.schemes()))
        return 0
    print("usage: python3 -m fplab --version | --formats | --schemes\n"
          "(the package: import fplab; the command: fplab)",
          file=sys.stderr if argv else sys.stdout)
    return 2 if argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
