"""hpx engine plugin ``kernelbench``: int8 kernel micro-benchmarks described in a YAML file.

The worked example of docs/writing-an-engine.md: a third-party engine that reads its own model
format, builds its kernels from a pinned git repository (or Arm CMSIS-NN, or ns-cmsis-nn) into
hpx's engine cache, and checks the device's output against a host reference bit for bit.
"""
