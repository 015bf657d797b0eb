"""What users read about the detectors, written from records: the cards (`cards.py`), the facts
they are made of (`records.py`) and the known failure modes (`probes.py`). Nothing here imports
Streamlit; the app, `explorer detectors` and the docs site read the same functions."""
