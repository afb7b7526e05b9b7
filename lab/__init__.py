"""The nest's laboratory: trace models, the weigher's scoring and studies, the ESP32 heap model,
benchmarks, fault drills and profiles. Not shipped with `nest`; run as `python -m lab.NAME`
(lab/README.md lists them)."""
