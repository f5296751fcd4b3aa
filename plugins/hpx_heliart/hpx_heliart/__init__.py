"""hpx engine plugin for Ambiq heliaRT (a TFLite Micro fork for Apollo CPUs)."""
