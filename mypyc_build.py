"""Compile the battle core's hot modules to C extensions with mypyc, in place (`make compiled`).

The extensions (`*.so` beside each module) are imported instead of the `.py` files of the same
name; `make pure` removes them and the same source runs as plain Python. The modules are listed
in the Makefile (COMPILED) and given on the command line: `python mypyc_build.py MODULE.py …`.
"""

from __future__ import annotations

import sys

from mypyc.build import mypycify
from setuptools import setup

if __name__ == "__main__":
    modules = sys.argv[1:]
    if not modules:
        sys.exit("usage: python mypyc_build.py MODULE.py …")
    setup(
        name="horizon-tui-compiled",
        packages=[],  # the project's own packaging is hatchling's (pyproject.toml): nothing to discover here
        py_modules=[],
        ext_modules=mypycify(modules, opt_level="3"),
        script_args=["build_ext", "--inplace"],
    )
