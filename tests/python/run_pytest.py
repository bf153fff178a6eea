"""Run pytest on the test files given (CTest's python_* tests): exit 77
(skipped) when pytest is missing, pytest's status otherwise."""
import sys

try:
    import pytest
except ImportError:
    print("pytest is not installed (Debian: python3-pytest): skipped")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs"] + sys.argv[1:]))
