"""fplab.testing.assert_close: the drop-in for a kernel test suite.

    fplab.testing.assert_close(out, ref)                  # bit-identical
    fplab.testing.assert_close(out, ref, ulp=2)
    fplab.testing.assert_close(out, ref, torch_defaults=True)

passes silently or raises AssertionError carrying fplab.compare's report:
the counts, the ulp histogram, the worst element, the NaN and infinity
disagreements and the first mismatches (show=10 by default).
"""
__all__ = ["assert_close"]


def assert_close(actual, expected, *, msg=None, show=10, **kwargs):
    """Raise AssertionError with fplab.compare's text unless every element
    of actual is within the tolerance of expected.  Keywords: those of
    fplab.compare (ulp=, rtol=/atol=, torch_defaults=, fmt=, inputs=, ...);
    msg: a line put first.  Returns the fplab.Verdict when it passes."""
    from . import compare
    __tracebackhide__ = True   # pytest: show the caller's line
    v = compare(actual, expected, show=show, **kwargs)
    if not v.ok:
        text = str(v)
        raise AssertionError(text if msg is None else "%s\n%s" % (msg, text))
    return v
