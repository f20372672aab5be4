"""Back-pointer states (Goldberg, Zhao & Huang 2013): parsing a long document at beam 8 needs no
more memory than a short one, beyond the input and output arrays themselves (states that fall off
the beam are freed by reference counting; the common trunk is committed to the output arrays)."""
import subprocess
import sys
import textwrap


def test_long_document_memory_is_flat():
    script = textwrap.dedent("""
        import resource
        import numpy
        from spacy_joint_sbd.transition import TransitionParser

        rng = numpy.random.default_rng(0)
        parser = TransitionParser(["dep", "root", "punct"], n_rows=1 << 12)
        # a few random weights so that the beam items really differ
        params = parser.get_params()
        params["W"][...] = rng.normal(size=params["W"].shape).astype("float32")

        def doc(n):
            return numpy.ascontiguousarray(rng.integers(0, 50, size=(n, 5)).astype(numpy.uint64))

        def rss():
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

        parser.engine.parse(doc(2000), 8)
        before = rss()
        heads, labels, starts = parser.engine.parse(doc(40000), 8)
        assert (heads >= -1).all() and starts[0]
        print(rss() - before)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    growth_mb = float(out.stdout.strip().splitlines()[-1])
    # measured: 3.5 MB (input, output and numpy temporaries); keeping the whole back-pointer
    # trunk instead of committing it every COMMIT_EVERY steps: 18 MB; O(n · B) states: > 100 MB
    assert growth_mb < 8, growth_mb
