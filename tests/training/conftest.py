"""The data builders' fixtures, for the builder of synthetic errors on the team-written corpus."""

from tests.data.conftest import fake_perspectrum, opened_files  # noqa: F401 (fixtures, found by name)
