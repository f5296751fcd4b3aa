"""hpx engine plugin for ExecuTorch on Cortex-M (arm or ns CMSIS-NN provider)."""
