"""hpx engine plugin for the Ambiq heliaAOT ahead-of-time compiler."""
