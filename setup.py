"""Build the Cython extensions: every ``.pyx`` under ``spacy_joint_sbd/`` becomes one module.

New modules need no edit here, so the transition, graph and learn stacks can grow independently.

Modules build with boundscheck=False / wraparound=False: that also drops the checks on Python-list
indexing with C integers, so every public entry point validates its arguments itself (and a module
that indexes Python lists from its arguments, like `transition/oracle.pyx`, turns bounds checks
back on in its header). For fuzzing, SJS_BOUNDSCHECK=1 builds everything with bounds checks, and
CFLAGS/LDFLAGS="-fsanitize=address" (run with LD_PRELOAD=$(gcc -print-file-name=libasan.so)
ASAN_OPTIONS=detect_leaks=0) catch out-of-bounds accesses that do not crash.
"""
import os
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).parent
PYX = sorted(ROOT.glob("spacy_joint_sbd/**/*.pyx"))
# Developers may rebuild one stack at a time: SJS_BUILD_ONLY=spacy_joint_sbd/graph
if os.environ.get("SJS_BUILD_ONLY"):
    PYX = [p for p in PYX if str(p.relative_to(ROOT)).startswith(os.environ["SJS_BUILD_ONLY"])]

extensions = [
    Extension(
        ".".join(p.relative_to(ROOT).with_suffix("").parts),
        [str(p.relative_to(ROOT))],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3", "-Wno-unused-function", "-Wno-unreachable-code"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for p in PYX
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={"boundscheck": os.environ.get("SJS_BOUNDSCHECK") == "1",
                             "wraparound": False, "cdivision": True},
        nthreads=os.cpu_count() or 1,
    ),
    # compile the C files on every core (pip install -e . spends most of its time here)
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
