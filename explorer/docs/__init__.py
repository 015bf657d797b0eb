"""What users read about the detectors, written from records: the facts (`records.py`), the cards
(`cards.py`), the failure modes and verdict bands (`limits.py`, the probes in `probes.py`, measured
by `bench/failure_modes.py`) and every generated docs file (`site.py`, `python -m explorer.docs`).
Nothing here imports Streamlit or torch; the app, `explorer detectors` and the docs site read the
same functions."""
